// Access tokens from getrandom(2), compared with CRYPTO_memcmp; file URL signatures with OpenSSL's SHA-256.
#include "server/access_token.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "core/base64.hpp"
#include "e2beval/core/error.hpp"

namespace e2beval::server {

std::string generate_access_token() {
    unsigned char bytes[32];
    std::size_t filled = 0;
    while (filled < sizeof bytes) {
        const auto got = ::getrandom(bytes + filled, sizeof bytes - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw sandbox_error(std::string("getrandom(32 bytes, 0) failed: ") + std::strerror(errno) +
                                ": cannot make a sandbox access token");
        }
        filled += static_cast<std::size_t>(got);
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string token;
    token.reserve(2 * sizeof bytes);
    for (const unsigned char byte : bytes) {
        token += kHex[byte >> 4];
        token += kHex[byte & 0x0f];
    }
    return token;
}

bool same_secret(std::string_view expected, std::string_view presented) {
    if (expected.empty() || expected.size() != presented.size()) return false;
    return CRYPTO_memcmp(expected.data(), presented.data(), expected.size()) == 0;
}

std::string file_url_signature(std::string_view path, std::string_view operation, std::string_view user,
                               std::string_view token, std::optional<std::int64_t> expiration) {
    std::string raw;
    raw.append(path).append(":").append(operation).append(":").append(user).append(":").append(token);
    if (expiration) raw.append(":").append(std::to_string(*expiration));
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(raw.data()), raw.size(), digest);
    auto encoded = base64_encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
    while (!encoded.empty() && encoded.back() == '=') encoded.pop_back();
    return "v1_" + encoded;
}

}  // namespace e2beval::server

// Key generation (OpenSSL's RAND_bytes) and checking (CRYPTO_memcmp).
#include "server/auth.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "e2beval/core/error.hpp"

namespace e2beval::server {

std::string generate_api_key() {
    unsigned char bytes[20];
    if (RAND_bytes(bytes, sizeof bytes) != 1)
        throw sandbox_error("RAND_bytes failed: the system has no random source to make an API key; pass --api-key");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string key = "e2b_";
    for (const unsigned char byte : bytes) {
        key += kHex[byte >> 4];
        key += kHex[byte & 0x0f];
    }
    return key;
}

bool ApiKeys::accepts(std::string_view presented) const {
    bool accepted = false;
    for (const auto& key : keys_)
        if (key.size() == presented.size() && CRYPTO_memcmp(key.data(), presented.data(), key.size()) == 0) accepted = true;
    return accepted;
}

}  // namespace e2beval::server

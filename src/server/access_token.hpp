// The secrets that guard one sandbox's traffic. E2B's control plane returns them when a sandbox is created or
// connected to, and the SDKs send them back on every request to the sandbox: `envdAccessToken` as
// X-Access-Token (envd, and the code interpreter's /execute), `trafficAccessToken` as E2B-Traffic-Access-Token
// (every code interpreter request, /contexts included, which carries no X-Access-Token). File URLs made by the
// SDK's download_url/upload_url carry a signature derived from the envd token instead of the header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace e2beval::server {

// 32 bytes from getrandom(2) as 64 hex digits. Throws sandbox_error when the kernel has no random source.
std::string generate_access_token();

// Compares in constant time for secrets of equal length (CRYPTO_memcmp), so the time taken does not tell
// how much of a guess was right. An empty `expected` accepts nothing.
bool same_secret(std::string_view expected, std::string_view presented);

// The signature of a file URL, as e2b.sandbox.signature.get_signature makes it:
// "v1_" + base64 (unpadded) of SHA-256("path:operation:user:token[:expiration]"); `operation` is "read" or
// "write", `user` empty for the default user.
std::string file_url_signature(std::string_view path, std::string_view operation, std::string_view user,
                               std::string_view token, std::optional<std::int64_t> expiration);

}  // namespace e2beval::server

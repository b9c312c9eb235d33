// Base64 (RFC 4648, with padding) for the bytes of files that cross the session protocol's JSON lines.
#pragma once

#include <string>
#include <string_view>

namespace e2beval {

std::string base64_encode(std::string_view bytes);
// Throws input_error for text that is not base64.
std::string base64_decode(std::string_view text);

}  // namespace e2beval

// Internal: the value of a string literal's body, its backslash escapes resolved; shared by the scanner's
// rules of every language, so that "\x2fetc" is read as "/etc" whichever language wrote it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "e2beval/core/text.hpp"

namespace e2beval::detail {

inline int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The value of a string literal's body with its backslash escapes resolved (\n, \x41, \101, \u0041, \U...),
// as Python, JavaScript and the C family read them; unknown escapes stay as written.
inline std::string unescape(std::string_view body) {
    std::string out;
    out.reserve(body.size());
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (body[i] != '\\' || i + 1 >= body.size()) {
            out += body[i];
            continue;
        }
        const char c = body[++i];
        const auto read_hex = [&](std::size_t digits) -> std::optional<std::uint32_t> {
            std::uint32_t value = 0;
            for (std::size_t k = 1; k <= digits; ++k) {
                if (i + k >= body.size()) return std::nullopt;
                const int digit = hex_value(body[i + k]);
                if (digit < 0) return std::nullopt;
                value = value * 16 + static_cast<std::uint32_t>(digit);
            }
            i += digits;
            return value;
        };
        switch (c) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
                std::uint32_t value = static_cast<std::uint32_t>(c - '0');
                for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
                    value = value * 8 + static_cast<std::uint32_t>(body[++i] - '0');
                append_utf8(out, value);
                break;
            }
            case 'x':
                if (const auto value = read_hex(2)) append_utf8(out, *value);
                else out += "\\x";
                break;
            case 'u':
                if (const auto value = read_hex(4)) append_utf8(out, *value);
                else out += "\\u";
                break;
            case 'U':
                if (const auto value = read_hex(8)) append_utf8(out, *value);
                else out += "\\U";
                break;
            case '\n': break;
            case '\\': case '\'': case '"': case '`': out += c; break;
            default:
                out += '\\';
                out += c;
        }
    }
    return out;
}

}  // namespace e2beval::detail

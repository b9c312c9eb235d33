// Text hygiene for everything that enters e2beval: strict UTF-8 validation, repair with U+FFFD and previews.
// Validation follows the Unicode "well-formed" table, so overlongs, surrogates and code points > U+10FFFF fail.
#include "e2beval/core/text.hpp"

#include <cstdint>
#include <cstdio>

#include "e2beval/core/error.hpp"

namespace e2beval {

namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";

// Length of the well-formed sequence starting at `pos`, or 0 when it is ill-formed; `valid_prefix` receives
// the length of its longest well-formed prefix (at least 1).
// Returning both lets to_valid_utf8 replace each "maximal subpart" with one U+FFFD, as the Unicode standard
// recommends and as Python's `errors="replace"` does.
std::size_t well_formed_length(std::string_view text, std::size_t pos, std::size_t& valid_prefix) noexcept {
    const auto byte_at = [&](std::size_t i) -> std::uint8_t {
        return i < text.size() ? static_cast<std::uint8_t>(text[i]) : std::uint8_t{0};
    };
    const std::uint8_t lead = byte_at(pos);
    valid_prefix = 1;
    if (lead < 0x80) return 1;

    std::size_t length = 0;
    std::uint8_t second_min = 0x80;
    std::uint8_t second_max = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) second_min = 0xA0;  // below is an overlong encoding
        if (lead == 0xED) second_max = 0x9F;  // above are the UTF-16 surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) second_min = 0x90;  // below is an overlong encoding
        if (lead == 0xF4) second_max = 0x8F;  // above is beyond U+10FFFF
    } else {
        return 0;  // 0x80..0xC1 (continuation or overlong lead) and 0xF5..0xFF never start a character
    }

    for (std::size_t i = 1; i < length; ++i) {
        if (pos + i >= text.size()) return 0;
        const std::uint8_t byte = byte_at(pos + i);
        const std::uint8_t min = i == 1 ? second_min : std::uint8_t{0x80};
        const std::uint8_t max = i == 1 ? second_max : std::uint8_t{0xBF};
        if (byte < min || byte > max) return 0;
        valid_prefix = i + 1;
    }
    return length;
}

std::optional<std::size_t> find_nul(std::string_view text) noexcept {
    const auto pos = text.find('\0');
    if (pos == std::string_view::npos) return std::nullopt;
    return pos;
}

}  // namespace

std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept {
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t valid_prefix = 0;
        const std::size_t length = well_formed_length(text, pos, valid_prefix);
        if (length == 0) return pos;
        pos += length;
    }
    return std::nullopt;
}

std::string shown_invalid_utf8(std::string_view text, std::size_t offset) {
    const auto byte_at = [&](std::size_t i) { return i < text.size() ? static_cast<std::uint8_t>(text[i]) : std::uint8_t{0}; };
    char escaped[16];
    if (byte_at(offset) == 0xED && byte_at(offset + 1) >= 0xA0 && byte_at(offset + 1) <= 0xBF && (byte_at(offset + 2) & 0xC0) == 0x80) {
        const unsigned code_point = 0xD000u | ((byte_at(offset + 1) & 0x3Fu) << 6) | (byte_at(offset + 2) & 0x3Fu);
        std::snprintf(escaped, sizeof escaped, "\\u%04x", code_point);
        return escaped;
    }
    std::string shown;
    std::size_t valid_prefix = 0;
    well_formed_length(text, offset, valid_prefix);
    for (std::size_t i = offset; i < offset + valid_prefix && i < text.size(); ++i) {
        std::snprintf(escaped, sizeof escaped, "\\x%02x", byte_at(i));
        shown += escaped;
    }
    return shown;
}

void require_clean_text(std::string_view text, std::string_view what) {
    const auto bad_byte = find_invalid_utf8(text);
    const auto nul = find_nul(text);
    // Report whichever problem comes first, so the offset points at the first thing the user must fix.
    if (bad_byte && (!nul || *bad_byte < *nul)) {
        throw input_error(std::string(what) + " is not valid UTF-8 (first bad byte at offset " +
                          std::to_string(*bad_byte) + "); re-encode it as UTF-8");
    }
    if (nul) {
        throw input_error(std::string(what) + " contains a NUL byte at offset " + std::to_string(*nul) +
                          "; remove it (interpreters and process arguments cannot carry NUL bytes)");
    }
}

std::string to_valid_utf8(std::string_view bytes) {
    std::string result;
    result.reserve(bytes.size());
    std::size_t pos = 0;
    while (pos < bytes.size()) {
        std::size_t valid_prefix = 0;
        const std::size_t length = well_formed_length(bytes, pos, valid_prefix);
        if (length == 0) {
            result += kReplacementCharacter;
            pos += valid_prefix;
        } else {
            result.append(bytes.substr(pos, length));
            pos += length;
        }
    }
    return result;
}

std::string preview(std::string_view text, std::size_t max_chars) {
    const std::string valid = to_valid_utf8(text);
    std::string result;
    std::size_t characters = 0;
    bool pending_space = false;
    std::size_t pos = 0;
    while (pos < valid.size()) {
        const auto byte = static_cast<unsigned char>(valid[pos]);
        // Any run of whitespace or control characters becomes one space: the preview must stay on one line.
        if (byte < 0x20 || byte == 0x7F || byte == ' ') {
            pending_space = !result.empty();
            ++pos;
            continue;
        }
        std::size_t valid_prefix = 0;
        const std::size_t length = well_formed_length(valid, pos, valid_prefix);
        const std::size_t needed = characters + (pending_space ? 1 : 0) + 1;
        if (needed > max_chars) {
            result += kEllipsis;
            return result;
        }
        if (pending_space) {
            result += ' ';
            ++characters;
            pending_space = false;
        }
        result.append(valid, pos, length);
        ++characters;
        pos += length;
    }
    return result;
}

std::string quoted_literal(std::string_view text, char quote, std::size_t max_bytes) {
    std::string out(1, quote);
    for (const char byte : text) {
        if (out.size() > max_bytes) return out + std::string(kEllipsis) + quote;
        const auto c = static_cast<unsigned char>(byte);
        switch (c) {
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\\': out += "\\\\"; break;
            default:
                if (byte == quote) {
                    out += '\\';
                    out += quote;
                } else if (c < 0x20 || c == 0x7f) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
                    out += escaped;
                } else {
                    out += byte;
                }
        }
    }
    return out + quote;
}

void append_utf8(std::string& out, std::uint32_t code_point) {
    if (code_point < 0x80) {
        out += static_cast<char>(code_point);
    } else if (code_point < 0x800) {
        out += static_cast<char>(0xC0 | (code_point >> 6));
        out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x10000) {
        out += static_cast<char>(0xE0 | (code_point >> 12));
        out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x110000) {
        out += static_cast<char>(0xF0 | (code_point >> 18));
        out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code_point & 0x3F));
    }
}

}  // namespace e2beval

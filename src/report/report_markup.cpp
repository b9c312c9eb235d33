// Escaping for the HTML and JUnit reports. Model output may hold markup, control characters and invalid
// UTF-8; after printable() and escape() none of it can end an element, open a tag or break the parser.
#include "report/report_markup.hpp"

#include <cstdio>

#include "e2beval/core/text.hpp"

namespace e2beval::report_markup {

namespace {

// Unicode "control pictures": U+2400 + c for c < 0x20, U+2421 for DEL; all three bytes long.
void append_control_picture(std::string& out, unsigned char c) {
    append_utf8(out, c == 0x7f ? 0x2421u : 0x2400u + c);
}

}  // namespace

std::string printable(std::string_view text) {
    const std::string valid = to_valid_utf8(text);
    std::string out;
    out.reserve(valid.size());
    for (std::size_t i = 0; i < valid.size(); ++i) {
        const auto c = static_cast<unsigned char>(valid[i]);
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
            append_control_picture(out, c);
        } else if (c == 0xEF && i + 2 < valid.size() && static_cast<unsigned char>(valid[i + 1]) == 0xBF &&
                   (static_cast<unsigned char>(valid[i + 2]) == 0xBE || static_cast<unsigned char>(valid[i + 2]) == 0xBF)) {
            out += "\xEF\xBF\xBD";  // U+FFFE and U+FFFF are not characters in XML
            i += 2;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string escape(std::string_view text) {
    const std::string clean = printable(text);
    std::string out;
    out.reserve(clean.size() + clean.size() / 8);
    for (const char c : clean) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string escape_attribute(std::string_view text) {
    const std::string escaped = escape(text);
    std::string out;
    out.reserve(escaped.size());
    for (const char c : escaped) {
        if (c == '\n') out += "&#10;";
        else if (c == '\r') out += "&#13;";
        else if (c == '\t') out += "&#9;";
        else out += c;
    }
    return out;
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return std::string(text);
    std::size_t cut = max_bytes;
    // Back up to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return std::string(text.substr(0, cut)) + "\n… (" + std::to_string(text.size() - cut) + " more bytes not shown)";
}

std::string first_line(std::string_view text, std::size_t max_chars) {
    const auto end = text.find_first_of("\r\n");
    const bool more_lines = end != std::string_view::npos && text.find_first_not_of("\r\n \t", end) != std::string_view::npos;
    std::string_view line = text.substr(0, end);
    std::string out;
    std::size_t chars = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80 && chars++ == max_chars) return out + "…";
        out += line[i];
    }
    return more_lines ? out + " …" : out;
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

}  // namespace e2beval::report_markup

// Text for the commands' plain-text tables: every cell on one line, columns padded to a width.
#pragma once

#include <cstddef>
#include <string>

namespace e2beval::cli {

// Newlines and tabs become spaces and text longer than `width` is cut with "...", so a row stays one line.
inline std::string one_line(std::string text, std::size_t width) {
    for (auto& c : text)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (text.size() > width) text = text.substr(0, width - 3) + "...";
    return text;
}

// The text with spaces up to `width`; longer text is kept whole.
inline std::string padded(std::string text, std::size_t width) {
    if (text.size() < width) text.resize(width, ' ');
    return text;
}

}  // namespace e2beval::cli

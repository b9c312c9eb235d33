// Checks on text that crosses into e2beval from users and models: UTF-8 validity, NUL bytes, previews.
// Every entry point validates its input here so bad bytes get one clear message, not a crash later.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace e2beval {

// Byte offset of the first invalid UTF-8 sequence, or nullopt when the text is valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept;

// Throws input_error naming `what` and the byte offset when the text is not valid UTF-8 or holds a NUL byte.
void require_clean_text(std::string_view text, std::string_view what);

// Replaces invalid UTF-8 with U+FFFD so program output can always be put into JSON and reports.
std::string to_valid_utf8(std::string_view bytes);

// The first `max_chars` characters on one line, for error messages ("…" when cut).
std::string preview(std::string_view text, std::size_t max_chars = 120);

}  // namespace e2beval

// Checks on text that crosses into e2beval from users and models: UTF-8 validity, NUL bytes, previews.
// Every entry point validates its input here so bad bytes get one clear message, not a crash later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace e2beval {

// Byte offset of the first invalid UTF-8 sequence, or nullopt when the text is valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept;

// The ill-formed sequence at `offset` (where find_invalid_utf8 stopped) written as escapes a reader can act on:
// a UTF-16 surrogate in three bytes (what Python's "surrogatepass" and WTF-8 make of a lone surrogate, such as
// the JSON escape \udcff that Python's json module writes for one) as "\udcff", other bytes as "\xff".
std::string shown_invalid_utf8(std::string_view text, std::size_t offset);

// Throws input_error naming `what` and the byte offset when the text is not valid UTF-8 or holds a NUL byte.
void require_clean_text(std::string_view text, std::string_view what);

// Replaces invalid UTF-8 with U+FFFD so program output can always be put into JSON and reports.
std::string to_valid_utf8(std::string_view bytes);

// The first `max_chars` characters on one line, for error messages ("…" when cut).
std::string preview(std::string_view text, std::size_t max_chars = 120);

// `text` between two `quote` characters with backslash escapes (\n \r \t \\, the quote, \xNN for the other
// control characters), so Python and C read it back as the same string; other bytes are kept as they are.
// Once the output is longer than `max_bytes` it is cut there and "…" goes before the closing quote.
std::string quoted_literal(std::string_view text, char quote, std::size_t max_bytes = std::string::npos);

// Appends the UTF-8 bytes of `code_point`. Surrogates are encoded like any other code point (as Python's
// "surrogatepass" does); values beyond U+10FFFF append nothing. Callers that need valid UTF-8 replace those first.
void append_utf8(std::string& out, std::uint32_t code_point);

}  // namespace e2beval

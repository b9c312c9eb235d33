// Text for reports that hold hostile model output: escaping for HTML and XML (both attribute-safe), and
// excerpts of long logs. Private to the report renderers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace e2beval::report_markup {

// Valid UTF-8 (invalid bytes become U+FFFD) in which every character XML 1.0 forbids is replaced by a visible
// stand-in: C0 controls other than tab/newline/return and DEL by their Unicode "control pictures" (U+241B
// for ESC), U+FFFE/U+FFFF by U+FFFD.
std::string printable(std::string_view text);

// printable() with & < > " ' escaped: safe as HTML/XML text and inside double- or single-quoted attributes.
std::string escape(std::string_view text);

// escape() that also keeps newlines and tabs in an attribute value (&#10; &#13; &#9;), which XML parsers
// would otherwise normalise to spaces.
std::string escape_attribute(std::string_view text);

// At most `max_bytes` of `text` cut at a character boundary, with a note of how much was left out.
std::string excerpt(std::string_view text, std::size_t max_bytes);

// The first line of `text`, at most `max_chars` characters ("…" when cut).
std::string first_line(std::string_view text, std::size_t max_chars);

// Fixed-point text of a number: "0.125" for (0.125, 3).
std::string fixed(double value, int decimals);

}  // namespace e2beval::report_markup

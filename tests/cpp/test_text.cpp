// Tests for text.hpp: strict UTF-8 validation, the input_error messages, U+FFFD repair and one-line previews.
// Byte sequences come from the Unicode well-formedness table (overlongs, surrogates, > U+10FFFF, truncation).
#include "e2beval/core/text.hpp"

#include <doctest/doctest.h>

#include <string>

#include "e2beval/core/error.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_text {

using namespace std::string_literals;

namespace {

std::string input_error_message(std::string_view text) {
    try {
        e2beval::require_clean_text(text, "model output");
    } catch (const e2beval::input_error& error) {
        CHECK(error.code() == e2beval::errc::invalid_input);
        return error.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("find_invalid_utf8 accepts well-formed text") {
    CHECK_FALSE(e2beval::find_invalid_utf8("").has_value());
    CHECK_FALSE(e2beval::find_invalid_utf8("plain ascii").has_value());
    CHECK_FALSE(e2beval::find_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80").has_value());
    CHECK_FALSE(e2beval::find_invalid_utf8("\xF4\x8F\xBF\xBF").has_value());  // U+10FFFF, the last code point
    CHECK_FALSE(e2beval::find_invalid_utf8("\xED\x9F\xBF").has_value());      // U+D7FF, just below surrogates
}

TEST_CASE("find_invalid_utf8 reports the offset of the first bad sequence") {
    CHECK(e2beval::find_invalid_utf8("\xC0\xAF") == 0u);                  // overlong '/'
    CHECK(e2beval::find_invalid_utf8("ab\xE0\x80\x80") == 2u);            // overlong 3-byte NUL
    CHECK(e2beval::find_invalid_utf8("x\xF0\x80\x80\x80") == 1u);         // overlong 4-byte
    CHECK(e2beval::find_invalid_utf8("\xED\xA0\x80") == 0u);              // UTF-16 surrogate U+D800
    CHECK(e2beval::find_invalid_utf8("ok\xF4\x90\x80\x80") == 2u);        // beyond U+10FFFF
    CHECK(e2beval::find_invalid_utf8("abc\xE2\x82") == 3u);               // truncated at the end
    CHECK(e2beval::find_invalid_utf8("\x80") == 0u);                      // lone continuation byte
    CHECK(e2beval::find_invalid_utf8("\xC3\xA9\xFF") == 2u);              // 0xFF never occurs
}

TEST_CASE("require_clean_text names the first bad byte") {
    CHECK(input_error_message("0123456789abcdefg\xFFrest") ==
          "model output is not valid UTF-8 (first bad byte at offset 17); re-encode it as UTF-8");
    CHECK(input_error_message("abc\0def"s) ==
          "model output contains a NUL byte at offset 3; remove it (interpreters and process arguments cannot carry "
          "NUL bytes)");
    // Both problems: the one that comes first is reported.
    CHECK(input_error_message("a\xFF\0"s) ==
          "model output is not valid UTF-8 (first bad byte at offset 1); re-encode it as UTF-8");
    CHECK(input_error_message("a\0\xFF"s) ==
          "model output contains a NUL byte at offset 1; remove it (interpreters and process arguments cannot carry "
          "NUL bytes)");
    CHECK(input_error_message("fine \xE2\x9C\x93") == "no error");
}

TEST_CASE("to_valid_utf8 replaces each maximal ill-formed subpart with one U+FFFD") {
    CHECK(e2beval::to_valid_utf8("a\xFF" "b") == "a\xEF\xBF\xBD" "b");
    CHECK(e2beval::to_valid_utf8("\xE2\x82") == "\xEF\xBF\xBD");             // truncated: one replacement
    CHECK(e2beval::to_valid_utf8("\xE2\x82x") == "\xEF\xBF\xBDx");
    CHECK(e2beval::to_valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // as Python does
    CHECK(e2beval::to_valid_utf8("caf\xC3\xA9") == "caf\xC3\xA9");
    CHECK(e2beval::to_valid_utf8("") == "");
}

TEST_CASE("preview stays on one line and marks a cut with an ellipsis") {
    CHECK(e2beval::preview("line one\n\n  line two\r\n") == "line one line two");
    CHECK(e2beval::preview("abcdef", 3) == "abc\xE2\x80\xA6");
    CHECK(e2beval::preview("abc", 3) == "abc");
    CHECK(e2beval::preview("ab cd", 3) == "ab\xE2\x80\xA6");
    CHECK(e2beval::preview("h\xC3\xA9llo w\xC3\xB6rld", 5) == "h\xC3\xA9llo\xE2\x80\xA6");  // counts characters
    CHECK(e2beval::preview("\tindented\tand\ttabbed  ") == "indented and tabbed");
    CHECK(e2beval::preview("bad \xFF byte") == "bad \xEF\xBF\xBD byte");
    CHECK(e2beval::preview("") == "");
}

TEST_CASE("shown_invalid_utf8 writes a surrogate's bytes as its escape, other bytes as \\x") {
    CHECK(e2beval::shown_invalid_utf8("ab\xED\xB3\xBF", 2) == "\\udcff");
    CHECK(e2beval::shown_invalid_utf8("caf\xe9", 3) == "\\xe9");
    CHECK(e2beval::shown_invalid_utf8("\xE2\x82", 0) == "\\xe2\\x82");
}

}  // namespace e2beval_test_text

// Internal: one tokenizer for the C family the scanner reads (C, C++, Go, Rust, Java), so that its rules only
// ever see code: comments, string and character literals (raw ones too) never match a rule. TypeScript is read
// by the JavaScript tokenizer (js_tokenizer.hpp), whose template literals and regexes it shares.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace e2beval::detail {

// The lexical dialects: what a comment, a string and a directive look like differ, the rest is shared.
enum class CDialect { c, cpp, go, rust, java };

enum class CTokenKind {
    identifier,  // names and keywords: `system`, `unsafe`, `asm`
    number,
    string,      // a string literal of any form; `value` holds what it means (escapes resolved, no quotes)
    character,   // 'x'; Rust lifetimes ('a) are not characters but punctuation then an identifier
    punct,       // operators and brackets; `::`, `->`, `...` are one token each
    directive,   // C/C++ `#include`, `#define`, ... (value: the directive's name, "include"); Go's `//go:NAME`
                 // comment directives (value: "go:embed", "go:linkname", ...)
    header,      // the operand of `#include`, `#include_next`, `#import`, `#embed` (value: the path as written),
                 // or one operand of a Go comment directive (value: the word, unquoted)
};

struct CToken {
    CTokenKind kind = CTokenKind::punct;
    std::string_view text;    // as written (a view into the tokenized code)
    std::string value;        // strings and headers: the literal's value; directives: their name; else empty
    std::size_t line = 0;     // 1-based
    std::size_t column = 0;   // 1-based, in bytes
    bool in_directive = false;  // part of a C preprocessor line (its name, operands and body)
};

// Tokens of `code`, in order. Never throws: an unterminated comment or literal ends at the end of the code
// (a string at the end of its line, where the language forbids newlines in it).
std::vector<CToken> tokenize_c_family(std::string_view code, CDialect dialect);

}  // namespace e2beval::detail

// A lexical view of C-family source (C++, Java, Go, Rust, JavaScript, TypeScript) for the MultiPL-E assembly:
// comments and literals blanked out so that braces and names are matched on code only, never on a string.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/eval/assembly.hpp"

namespace e2beval::assembly {

// `code` with every comment and the contents of every string, char and template literal replaced by spaces
// (newlines kept), so that offsets are the same in both. Bash is not masked this way (its rules are per line).
std::string mask_source(std::string_view code, Language language);

// A word (identifier, keyword or number) or one punctuation character of masked source.
struct Token {
    bool word = false;
    std::string_view text;
    std::size_t offset = 0;
    int depth = 0;  // brace depth before the token
    int parens = 0; // parenthesis depth before the token
};

std::vector<Token> tokenize_masked(std::string_view masked);

// A masked source and its tokens, built once and read by the per-language rules.
class SourceView {
public:
    SourceView(std::string_view code, Language language);
    // The tokens point into masked_: a copy would point into the original's.
    SourceView(const SourceView&) = delete;
    SourceView& operator=(const SourceView&) = delete;

    Language language() const noexcept { return language_; }
    const std::string& code() const noexcept { return code_; }
    const std::string& masked() const noexcept { return masked_; }
    const std::vector<Token>& tokens() const noexcept { return tokens_; }

    bool is(std::size_t index, std::string_view text) const noexcept {
        return index < tokens_.size() && tokens_[index].text == text;
    }
    // The index of the token that closes the bracket opened at `open` ('(' ')', '{' '}', '[' ']', each kind
    // matched on its own), or nullopt when the source ends first or `open` is no opening bracket.
    std::optional<std::size_t> closing(std::size_t open) const noexcept;
    // The first token at or after `from` whose text is `text`, at brace depth `depth` (any when negative).
    std::optional<std::size_t> find(std::size_t from, std::string_view text, int depth = -1) const noexcept;

private:
    static constexpr std::size_t kUnmatched = static_cast<std::size_t>(-1);
    void match_brackets();

    Language language_;
    std::string code_;
    std::string masked_;
    std::vector<Token> tokens_;
    std::vector<std::size_t> partners_;  // per token: its bracket's partner, or kUnmatched
};

// A half-open range of the source.
struct Span {
    std::size_t begin = 0;
    std::size_t end = 0;
};

// The whole definition that starts on the line of token `first` and whose body is the first '{' block at or after
// token `from`: from the start of that line (and `attribute_lines` before it: Rust `#[...]`, Java `@...`)
// through the closing brace and the newline after it. A body the source never closes (a truncated answer) runs
// to the end. nullopt when a ';' comes before any '{' (a declaration, not a definition).
std::optional<Span> definition_span(const SourceView& view, std::size_t first, std::size_t from,
                                    bool attribute_lines = false);

// `code` without the spans (sorted, non-overlapping).
std::string remove_spans(std::string_view code, const std::vector<Span>& spans);

std::size_t line_start(std::string_view text, std::size_t offset) noexcept;
std::size_t line_end(std::string_view text, std::size_t offset) noexcept;  // the '\n' or the end

// Whether the token at `index` begins a definition of a function named `name` for `language` (C++/Java:
// `name(...)` followed by qualifiers and `{`; Go `func name(`; Rust `fn name(`; JS/TS `function name(`,
// `const name =`).
bool defines_function_at(const SourceView& view, std::size_t index, std::string_view name);
bool defines_function(const SourceView& view, std::string_view name);

// The answer cut at the earliest occurrence of any stop token (MultiPL-E's continuation rule).
std::string cut_at_stop_tokens(std::string_view text, const std::vector<std::string>& stop_tokens);

// `tests` without its first non-empty line when that line only closes the prompt's function ("}" in C++, Rust and
// bash; "    }" in Java): a free-form answer closes its function itself.
std::string tests_without_closing_line(std::string_view tests);

}  // namespace e2beval::assembly

// The lexical view of C-family source: a hand-written scanner (no std::regex: a model's answer may hold a
// 100,000-character line) that blanks comments and literals, then words and punctuation with their depths.
#include "source_scan.hpp"

#include <algorithm>
#include <cctype>

namespace e2beval::assembly {

namespace scan_rules {

bool is_word_char(char c) noexcept {
    const auto u = static_cast<unsigned char>(c);
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u == '$' || u >= 0x80;
}

// Blanks code[from, to) except newlines.
void blank(std::string& masked, std::size_t from, std::size_t to) {
    to = std::min(to, masked.size());
    for (std::size_t k = from; k < to; ++k)
        if (masked[k] != '\n') masked[k] = ' ';
}

// The end (one past the closing quote) of a quoted literal starting at `open`, with backslash escapes unless `raw`.
std::size_t quoted_end(std::string_view code, std::size_t open, char quote, bool raw) {
    std::size_t j = open + 1;
    while (j < code.size() && code[j] != quote) {
        if (!raw && code[j] == '\\') ++j;
        ++j;
    }
    return std::min(j + 1, code.size());
}

// A char literal at `open` ('a', '\n', '\x41', '\u{1F600}', a multi-byte character): its end, or nullopt when the
// quote starts something else (a Rust lifetime `'a`, a C++14 digit separator).
std::optional<std::size_t> char_literal_end(std::string_view code, std::size_t open) {
    std::size_t j = open + 1;
    if (j >= code.size() || code[j] == '\n' || code[j] == '\'') return std::nullopt;
    if (code[j] == '\\') {
        // An escape: up to the closing quote on this line, at most a dozen characters on.
        for (std::size_t k = j + 2; k < code.size() && k < j + 14 && code[k] != '\n'; ++k)
            if (code[k] == '\'') return k + 1;
        return std::nullopt;
    }
    // One UTF-8 character, then the quote.
    const auto lead = static_cast<unsigned char>(code[j]);
    j += lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (j < code.size() && code[j] == '\'') return j + 1;
    return std::nullopt;
}

// A template literal `...${ expr }...` from `open`: its end. The expressions' braces are counted so that a `}`
// inside one does not end the template early.
std::size_t template_end(std::string_view code, std::size_t open, int nesting = 0) {
    // Templates nest inside ${...}; past a depth no program uses, the rest is one literal (no deep recursion on a
    // hostile answer).
    if (nesting > 32) return code.size();
    std::size_t j = open + 1;
    while (j < code.size()) {
        const char c = code[j];
        if (c == '\\') {
            j += 2;
            continue;
        }
        if (c == '`') return j + 1;
        if (c == '$' && j + 1 < code.size() && code[j + 1] == '{') {
            int depth = 1;
            j += 2;
            while (j < code.size() && depth > 0) {
                if (code[j] == '{') ++depth;
                else if (code[j] == '}') --depth;
                else if (code[j] == '`') j = template_end(code, j, nesting + 1) - 1;
                else if (code[j] == '"' || code[j] == '\'') j = quoted_end(code, j, code[j], false) - 1;
                ++j;
            }
            continue;
        }
        ++j;
    }
    return code.size();
}

}  // namespace scan_rules

std::string mask_source(std::string_view code, Language language) {
    using namespace scan_rules;
    using L = Language;
    const bool js = language == L::javascript || language == L::typescript;
    std::string masked(code);
    std::size_t i = 0;
    const std::size_t n = code.size();
    while (i < n) {
        const char c = code[i];
        const char next = i + 1 < n ? code[i + 1] : '\0';
        if (c == '/' && next == '/') {
            const std::size_t end = line_end(code, i);
            blank(masked, i, end);
            i = end;
        } else if (c == '/' && next == '*') {
            // Rust's block comments nest; the others end at the first */.
            std::size_t j = i + 2;
            int depth = 1;
            while (j < n && depth > 0) {
                if (code[j] == '*' && j + 1 < n && code[j + 1] == '/') {
                    --depth;
                    j += 2;
                } else if (language == L::rust && code[j] == '/' && j + 1 < n && code[j + 1] == '*') {
                    ++depth;
                    j += 2;
                } else {
                    ++j;
                }
            }
            blank(masked, i, j);
            i = j;
        } else if (language == L::rust && (c == 'r' || c == 'b') && (i == 0 || !is_word_char(code[i - 1])) &&
                   (next == '"' || next == '#' || (c == 'b' && next == 'r'))) {
            // Raw strings r"..", r#".."#, br"..".
            std::size_t j = i + (c == 'b' && next == 'r' ? 2 : 1);
            if (c == 'b' && next != 'r') {
                ++i;
                continue;
            }
            std::size_t hashes = 0;
            while (j < n && code[j] == '#') ++hashes, ++j;
            if (j >= n || code[j] != '"') {
                ++i;
                continue;
            }
            const std::string terminator = "\"" + std::string(hashes, '#');
            const std::size_t close = code.find(terminator, j + 1);
            const std::size_t end = close == std::string_view::npos ? n : close + terminator.size();
            blank(masked, j + 1, end - terminator.size() > j + 1 ? end - terminator.size() : j + 1);
            i = end;
        } else if (language == L::cpp && c == 'R' && next == '"' && (i == 0 || !is_word_char(code[i - 1]) ||
                                                                    code[i - 1] == '8' || code[i - 1] == 'u' ||
                                                                    code[i - 1] == 'U' || code[i - 1] == 'L')) {
            // R"delim( ... )delim"
            const std::size_t paren = code.find('(', i + 2);
            if (paren == std::string_view::npos || paren - i > 18) {
                ++i;
                continue;
            }
            const std::string terminator = ")" + std::string(code.substr(i + 2, paren - i - 2)) + "\"";
            const std::size_t close = code.find(terminator, paren + 1);
            const std::size_t end = close == std::string_view::npos ? n : close + terminator.size();
            blank(masked, i + 2, end > 0 ? end - 1 : end);
            i = end;
        } else if (language == L::java && c == '"' && code.substr(i, 3) == "\"\"\"") {
            const std::size_t close = code.find("\"\"\"", i + 3);
            const std::size_t end = close == std::string_view::npos ? n : close + 3;
            blank(masked, i + 3, end >= 3 ? end - 3 : end);
            i = end;
        } else if (c == '"' || (c == '\'' && js)) {
            const std::size_t end = quoted_end(code, i, c, false);
            blank(masked, i + 1, end - 1);
            i = end;
        } else if (c == '`' && language == L::go) {
            const std::size_t end = quoted_end(code, i, '`', true);
            blank(masked, i + 1, end - 1);
            i = end;
        } else if (c == '`' && js) {
            const std::size_t end = template_end(code, i);
            blank(masked, i + 1, end - 1);
            i = end;
        } else if (c == '\'') {
            // A char literal, unless a digit separator (1'000) or a Rust lifetime.
            if (language == L::cpp && i > 0 && std::isxdigit(static_cast<unsigned char>(code[i - 1]))) {
                ++i;
                continue;
            }
            if (const auto end = char_literal_end(code, i)) {
                blank(masked, i + 1, *end - 1);
                i = *end;
            } else {
                ++i;
            }
        } else {
            ++i;
        }
    }
    return masked;
}

std::vector<Token> tokenize_masked(std::string_view masked) {
    std::vector<Token> tokens;
    int depth = 0, parens = 0;
    std::size_t i = 0;
    while (i < masked.size()) {
        const char c = masked[i];
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            ++i;
            continue;
        }
        Token token;
        token.offset = i;
        if (scan_rules::is_word_char(c)) {
            std::size_t j = i;
            while (j < masked.size() && scan_rules::is_word_char(masked[j])) ++j;
            token.word = true;
            token.text = masked.substr(i, j - i);
            i = j;
        } else {
            token.text = masked.substr(i, 1);
            ++i;
        }
        if (token.text == "}") depth = std::max(depth - 1, 0);
        if (token.text == ")") parens = std::max(parens - 1, 0);
        token.depth = depth;
        token.parens = parens;
        if (token.text == "{") ++depth;
        if (token.text == "(") ++parens;
        tokens.push_back(token);
    }
    return tokens;
}

SourceView::SourceView(std::string_view code, Language language)
    : language_(language), code_(code), masked_(mask_source(code, language)), tokens_(tokenize_masked(masked_)) {
    match_brackets();
}

std::optional<std::size_t> SourceView::closing(std::size_t open) const noexcept {
    if (open >= partners_.size() || partners_[open] == kUnmatched) return std::nullopt;
    return partners_[open];
}

// Every bracket's partner in one pass (a stack per kind), so that finding a closing bracket is constant time: a
// hostile answer of a million unclosed `f(` costs a million steps, not a million squared.
void SourceView::match_brackets() {
    partners_.assign(tokens_.size(), kUnmatched);
    std::vector<std::size_t> open[3];
    for (std::size_t k = 0; k < tokens_.size(); ++k) {
        const auto text = tokens_[k].text;
        if (text.size() != 1) continue;
        const std::size_t kind = std::string_view("({[").find(text[0]);
        if (kind != std::string_view::npos) {
            open[kind].push_back(k);
            continue;
        }
        const std::size_t closer = std::string_view(")}]").find(text[0]);
        if (closer != std::string_view::npos && !open[closer].empty()) {
            partners_[open[closer].back()] = k;
            open[closer].pop_back();
        }
    }
}

std::optional<std::size_t> SourceView::find(std::size_t from, std::string_view text, int depth) const noexcept {
    for (std::size_t k = from; k < tokens_.size(); ++k)
        if (tokens_[k].text == text && (depth < 0 || tokens_[k].depth == depth)) return k;
    return std::nullopt;
}

std::size_t line_start(std::string_view text, std::size_t offset) noexcept {
    if (offset == 0) return 0;
    const std::size_t newline = text.rfind('\n', offset - 1);
    return newline == std::string_view::npos ? 0 : newline + 1;
}

std::size_t line_end(std::string_view text, std::size_t offset) noexcept {
    const std::size_t newline = text.find('\n', offset);
    return newline == std::string_view::npos ? text.size() : newline;
}

std::optional<Span> definition_span(const SourceView& view, std::size_t first, std::size_t from, bool attribute_lines) {
    const auto& tokens = view.tokens();
    const auto& code = view.code();
    if (first >= tokens.size() || from >= tokens.size()) return std::nullopt;
    // After the parameter list, the body's `{` comes within a few tokens (`-> Result<(), String>`, `throws E`,
    // `noexcept`); a `;` first is a declaration. The look is bounded: a hostile answer of many unclosed `main(`
    // must not make each of them scan to the end.
    constexpr std::size_t kLookahead = 256;
    std::size_t k = from;
    if (tokens[k].text == "(") {
        const auto close = view.closing(k);
        if (!close) {
            Span rest{line_start(code, tokens[first].offset), code.size()};  // a truncated answer: cut to the end
            return rest;
        }
        k = *close + 1;
    }
    std::optional<std::size_t> open;
    for (const std::size_t stop = std::min(tokens.size(), k + kLookahead); k < stop; ++k) {
        if (tokens[k].text == ";") return std::nullopt;
        if (tokens[k].text == "{") {
            open = k;
            break;
        }
        if (tokens[k].text == "(") {
            const auto close = view.closing(k);
            if (!close) break;
            k = *close;
        }
    }
    if (!open && k < tokens.size()) return std::nullopt;  // no body close after the signature: not a definition
    Span span;
    span.begin = line_start(code, tokens[first].offset);
    if (attribute_lines) {
        // #[test], #[cfg(test)], @Test on the lines just above belong to the definition.
        while (span.begin > 0) {
            const std::size_t previous = line_start(code, span.begin - 1);
            std::string_view line = std::string_view(view.masked()).substr(previous, span.begin - 1 - previous);
            line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
            if (!(line.starts_with("#[") || line.starts_with("@"))) break;
            span.begin = previous;
        }
    }
    if (!open) {
        span.end = code.size();  // nothing opens: a truncated answer; cut to the end
        return span;
    }
    const auto close = view.closing(*open);
    if (!close) {
        span.end = code.size();
        return span;
    }
    span.end = tokens[*close].offset + 1;
    if (span.end < code.size() && code[span.end] == '\n') ++span.end;
    return span;
}

std::string remove_spans(std::string_view code, const std::vector<Span>& spans) {
    std::string result;
    std::size_t position = 0;
    for (const auto& span : spans) {
        if (span.begin < position) continue;  // overlaps the previous one
        result.append(code.substr(position, span.begin - position));
        position = span.end;
    }
    if (position < code.size()) result.append(code.substr(position));
    return result;
}

namespace scan_rules {

bool is_any(std::string_view text, std::initializer_list<std::string_view> options) {
    return std::find(options.begin(), options.end(), text) != options.end();
}

// C++ and Java: `name(...)` then only qualifiers, a trailing return type or `throws` before `{`.
bool c_like_definition(const SourceView& view, std::size_t index) {
    const auto& tokens = view.tokens();
    if (!view.is(index + 1, "(")) return false;
    if (index > 0) {
        const auto& previous = tokens[index - 1];
        if (previous.text == "." || is_any(previous.text, {"new", "return", "throw", "else", "case", "co_return"}))
            return false;
        if (previous.text == ">" && index > 1 && tokens[index - 2].text == "-") return false;
        if (!previous.word && !is_any(previous.text, {">", "*", "&", ":", "]"})) return false;
    }
    const auto close = view.closing(index + 1);
    if (!close) return false;
    for (std::size_t k = *close + 1, stop = std::min(tokens.size(), *close + 257); k < stop; ++k) {
        const auto text = tokens[k].text;
        if (text == "{") return true;
        if (!tokens[k].word && !is_any(text, {"-", ">", "<", ":", ",", "*", "&", "[", "]", "."})) return false;
    }
    return false;
}

}  // namespace scan_rules

bool defines_function_at(const SourceView& view, std::size_t index, std::string_view name) {
    using namespace scan_rules;
    using L = Language;
    const auto& tokens = view.tokens();
    if (index >= tokens.size() || tokens[index].text != name) return false;
    const auto previous = [&](std::size_t back) -> std::string_view {
        return index >= back ? tokens[index - back].text : std::string_view{};
    };
    switch (view.language()) {
        case L::cpp:
        case L::java:
            return c_like_definition(view, index);
        case L::go:
            return previous(1) == "func" && (view.is(index + 1, "(") || view.is(index + 1, "["));
        case L::rust:
            return previous(1) == "fn" && (view.is(index + 1, "(") || view.is(index + 1, "<"));
        case L::javascript:
        case L::typescript: {
            const bool ts = view.language() == L::typescript;
            if ((previous(1) == "function" || (previous(1) == "*" && previous(2) == "function")) &&
                (view.is(index + 1, "(") || (ts && view.is(index + 1, "<"))))
                return true;
            return is_any(previous(1), {"const", "let", "var"}) && (view.is(index + 1, "=") || (ts && view.is(index + 1, ":")));
        }
        default:
            return false;  // bash is read per line (bash.cpp)
    }
    return false;
}

bool defines_function(const SourceView& view, std::string_view name) {
    for (std::size_t k = 0; k < view.tokens().size(); ++k)
        if (defines_function_at(view, k, name)) return true;
    return false;
}

std::string cut_at_stop_tokens(std::string_view text, const std::vector<std::string>& stop_tokens) {
    std::size_t cut = text.size();
    for (const auto& token : stop_tokens)
        if (!token.empty()) cut = std::min(cut, text.find(token));
    return std::string(text.substr(0, cut));
}

std::string tests_without_closing_line(std::string_view tests) {
    std::size_t start = 0;
    while (start < tests.size()) {
        const std::size_t end = line_end(tests, start);
        const std::string_view line = tests.substr(start, end - start);
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
            start = end + 1;
            continue;
        }
        const std::size_t first = line.find_first_not_of(" \t");
        if (line.substr(first).starts_with("}") && line.find_first_not_of(" \t\r", first + 1) == std::string_view::npos)
            return std::string(tests.substr(std::min(end + 1, tests.size())));
        break;
    }
    return std::string(tests);
}

}  // namespace e2beval::assembly

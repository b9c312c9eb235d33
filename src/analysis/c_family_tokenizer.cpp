// The C-family tokenizer: comments (Rust's nest), every string form of the five languages (C++ raw strings,
// Rust raw/byte strings, Go backquotes, Java text blocks), character literals apart from Rust lifetimes and
// C++ digit separators, and the directives a rule must see (the preprocessor's, Go's //go: comments).
#include "analysis/c_family_tokenizer.hpp"

#include <algorithm>
#include <array>

#include "analysis/string_escapes.hpp"

namespace e2beval::detail {

namespace {

bool is_identifier_start(char c) noexcept {
    const auto byte = static_cast<unsigned char>(c);
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || byte >= 0x80;
}
bool is_identifier_char(char c) noexcept { return is_identifier_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

class CFamilyTokenizer {
public:
    CFamilyTokenizer(std::string_view code, CDialect dialect) : code_(code), dialect_(dialect) {}

    std::vector<CToken> run() && {
        while (pos_ < code_.size()) step();
        return std::move(tokens_);
    }

private:
    bool c_like() const noexcept { return dialect_ == CDialect::c || dialect_ == CDialect::cpp; }
    char at(std::size_t i) const noexcept { return i < code_.size() ? code_[i] : '\0'; }
    std::size_t column_of(std::size_t pos) const noexcept { return pos - line_start_ + 1; }

    // Moves to `to`, counting the newlines passed over (they end a preprocessor line unless escaped).
    void advance_to(std::size_t to) {
        to = std::min(to, code_.size());
        for (; pos_ < to; ++pos_) {
            if (code_[pos_] != '\n') continue;
            ++line_;
            line_start_ = pos_ + 1;
            const bool escaped = pos_ > 0 && (code_[pos_ - 1] == '\\' || (code_[pos_ - 1] == '\r' && pos_ > 1 && code_[pos_ - 2] == '\\'));
            if (!escaped) {
                in_directive_ = false;
                line_has_code_ = false;
            }
        }
    }

    CToken& push(CTokenKind kind, std::size_t begin, std::size_t line, std::size_t column, std::string value = {}) {
        tokens_.push_back({kind, code_.substr(begin, pos_ - begin), std::move(value), line, column, in_directive_});
        line_has_code_ = true;
        return tokens_.back();
    }

    void step() {
        const char c = code_[pos_];
        const std::size_t begin = pos_;
        const std::size_t line = line_;
        const std::size_t column = column_of(pos_);
        if (c == '\n' || is_space(c) || (c == '\\' && (at(pos_ + 1) == '\n' || at(pos_ + 1) == '\r'))) {
            advance_to(pos_ + 1);
        } else if (c == '/' && at(pos_ + 1) == '/') {
            line_comment(begin, line, column);
        } else if (c == '/' && at(pos_ + 1) == '*') {
            block_comment();
        } else if (c == '#' && c_like() && !line_has_code_) {
            directive(begin, line, column);
        } else if (c == '"') {
            quoted_string(begin, line, column, 1);
        } else if (c == '`' && dialect_ == CDialect::go) {
            const std::size_t close = std::min(code_.find('`', pos_ + 1), code_.size());
            std::string value(code_.substr(begin + 1, close - begin - 1));
            advance_to(close + 1);
            push(CTokenKind::string, begin, line, column, std::move(value));
        } else if (c == '\'') {
            character(begin, line, column);
        } else if (is_digit(c) || (c == '.' && is_digit(at(pos_ + 1)))) {
            number(begin, line, column);
        } else if (is_identifier_start(c)) {
            identifier_or_prefixed_literal(begin, line, column);
        } else {
            punct(begin, line, column);
        }
    }

    // `//...` to the end of the line; Go's `//go:NAME operands` at a line's start is a directive.
    void line_comment(std::size_t begin, std::size_t line, std::size_t column) {
        std::size_t end = code_.find('\n', pos_);
        if (end == std::string_view::npos) end = code_.size();
        const std::string_view text = code_.substr(pos_, end - pos_);
        if (dialect_ == CDialect::go && column == 1 && text.starts_with("//go:")) {
            std::size_t name_end = 2;
            while (name_end < text.size() && !is_space(text[name_end])) ++name_end;
            pos_ = begin + name_end;
            push(CTokenKind::directive, begin, line, column, std::string(text.substr(2, name_end - 2)));
            go_directive_operands(end);
        }
        pos_ = end;
    }

    // The operands of a //go: directive, each a header token: words, "quoted" or `quoted`.
    void go_directive_operands(std::size_t end) {
        while (pos_ < end) {
            while (pos_ < end && is_space(code_[pos_])) ++pos_;
            if (pos_ >= end) break;
            const std::size_t begin = pos_;
            const char quote = code_[pos_];
            std::string value;
            if (quote == '"' || quote == '`') {
                ++pos_;
                while (pos_ < end && code_[pos_] != quote) {
                    if (quote == '"' && code_[pos_] == '\\') ++pos_;
                    ++pos_;
                }
                value = std::string(code_.substr(begin + 1, std::min(pos_, end) - begin - 1));
                if (quote == '"') value = unescape(value);
                pos_ = std::min(pos_ + 1, end);
            } else {
                while (pos_ < end && !is_space(code_[pos_])) ++pos_;
                value = std::string(code_.substr(begin, pos_ - begin));
            }
            push(CTokenKind::header, begin, line_, column_of(begin), std::move(value));
        }
    }

    // `/* ... */`; Rust's nest.
    void block_comment() {
        std::size_t depth = 0;
        std::size_t i = pos_;
        while (i < code_.size()) {
            if (code_[i] == '/' && at(i + 1) == '*') {
                ++depth;
                i += 2;
            } else if (code_[i] == '*' && at(i + 1) == '/') {
                i += 2;
                if (--depth == 0 || dialect_ != CDialect::rust) break;
            } else {
                ++i;
            }
        }
        advance_to(i);
    }

    // `#name ...` as the first thing on a line: a directive token, then for the include family a header
    // token, then the rest of the line as tokens marked in_directive (a #define's body is code too).
    void directive(std::size_t begin, std::size_t line, std::size_t column) {
        in_directive_ = true;
        ++pos_;
        while (pos_ < code_.size() && is_space(code_[pos_])) ++pos_;
        const std::size_t name_begin = pos_;
        while (pos_ < code_.size() && is_identifier_char(code_[pos_])) ++pos_;
        const std::string name(code_.substr(name_begin, pos_ - name_begin));
        push(CTokenKind::directive, begin, line, column, name);
        if (name != "include" && name != "include_next" && name != "import" && name != "embed") return;
        while (pos_ < code_.size() && is_space(code_[pos_])) ++pos_;
        const char open = at(pos_);
        if (open != '<' && open != '"') return;  // a macro names the header: its tokens follow as code
        const char close = open == '<' ? '>' : '"';
        const std::size_t header_begin = pos_;
        std::size_t end = pos_ + 1;
        while (end < code_.size() && code_[end] != close && code_[end] != '\n') ++end;
        const std::string value(code_.substr(header_begin + 1, end - header_begin - 1));
        pos_ = end < code_.size() && code_[end] == close ? end + 1 : end;
        push(CTokenKind::header, header_begin, line_, column_of(header_begin), value);
    }

    // A "..." string from its opening quote at pos_ (after any prefix): Java text blocks, escapes resolved.
    void quoted_string(std::size_t begin, std::size_t line, std::size_t column, std::size_t quote_at_offset) {
        pos_ = begin + quote_at_offset - 1;  // the opening quote
        const bool text_block = dialect_ == CDialect::java && code_.substr(pos_, 3) == "\"\"\"";
        const std::size_t body_begin = pos_ + (text_block ? 3 : 1);
        // Rust strings may span lines; C's, Go's and Java's (but text blocks) end at the line.
        const bool multiline = text_block || dialect_ == CDialect::rust;
        std::size_t i = body_begin;
        std::size_t body_end = code_.size();
        while (i < code_.size()) {
            if (code_[i] == '\\') {
                i += 2;
                continue;
            }
            if (text_block ? code_.substr(i, 3) == "\"\"\"" : code_[i] == '"') {
                body_end = i;
                i += text_block ? 3 : 1;
                break;
            }
            if (code_[i] == '\n' && !multiline) {
                body_end = i;
                break;
            }
            ++i;
        }
        body_end = std::min(body_end, code_.size());
        const std::string value = unescape(code_.substr(body_begin, body_end - body_begin));
        advance_to(std::min(i, code_.size()));
        push(CTokenKind::string, begin, line, column, value);
    }

    // C++ R"delim( ... )delim"; the prefix (R, u8R, LR, ...) ends at pos_ - 1 ... the quote is at pos_.
    void cpp_raw_string(std::size_t begin, std::size_t line, std::size_t column) {
        const std::size_t open_paren = code_.find('(', pos_ + 1);
        if (open_paren == std::string_view::npos || open_paren - pos_ - 1 > 16) {
            quoted_string(begin, line, column, pos_ - begin + 1);
            return;
        }
        const std::string terminator = ")" + std::string(code_.substr(pos_ + 1, open_paren - pos_ - 1)) + "\"";
        const std::size_t close = code_.find(terminator, open_paren + 1);
        const std::size_t body_end = close == std::string_view::npos ? code_.size() : close;
        const std::string value(code_.substr(open_paren + 1, body_end - open_paren - 1));
        advance_to(close == std::string_view::npos ? code_.size() : close + terminator.size());
        push(CTokenKind::string, begin, line, column, value);
    }

    // Rust r"..." / r#"..."# (br, cr too): the quote or the first # is at pos_.
    void rust_raw_string(std::size_t begin, std::size_t line, std::size_t column) {
        std::size_t hashes = 0;
        while (at(pos_ + hashes) == '#') ++hashes;
        if (at(pos_ + hashes) != '"') {  // `r#ident` (a raw identifier), not a string
            push(CTokenKind::identifier, begin, line, column);
            return;
        }
        const std::size_t body_begin = pos_ + hashes + 1;
        const std::string terminator = "\"" + std::string(hashes, '#');
        const std::size_t close = code_.find(terminator, body_begin);
        const std::size_t body_end = close == std::string_view::npos ? code_.size() : close;
        const std::string value(code_.substr(body_begin, body_end - body_begin));
        advance_to(close == std::string_view::npos ? code_.size() : close + terminator.size());
        push(CTokenKind::string, begin, line, column, value);
    }

    // 'x', '\n', '\u{41}'; in Rust a quote not closed one character later is a lifetime or label ('a).
    void character(std::size_t begin, std::size_t line, std::size_t column) {
        if (dialect_ == CDialect::rust && at(pos_ + 1) != '\\') {
            std::size_t width = 1;
            const auto lead = static_cast<unsigned char>(at(pos_ + 1));
            if (lead >= 0xF0) width = 4;
            else if (lead >= 0xE0) width = 3;
            else if (lead >= 0xC0) width = 2;
            if (at(pos_ + 1 + width) != '\'') {
                ++pos_;
                push(CTokenKind::punct, begin, line, column);
                return;
            }
        }
        std::size_t i = pos_ + 1;
        while (i < code_.size() && code_[i] != '\'' && code_[i] != '\n') i += code_[i] == '\\' ? 2 : 1;
        i = std::min(i, code_.size());
        const std::string value = unescape(code_.substr(pos_ + 1, i - pos_ - 1));
        pos_ = i < code_.size() && code_[i] == '\'' ? i + 1 : i;
        push(CTokenKind::character, begin, line, column, value);
    }

    void number(std::size_t begin, std::size_t line, std::size_t column) {
        ++pos_;
        while (pos_ < code_.size()) {
            const char c = code_[pos_];
            const char previous = code_[pos_ - 1];
            if (is_identifier_char(c)) {
                ++pos_;
            } else if ((c == '+' || c == '-') && (previous == 'e' || previous == 'E' || previous == 'p' || previous == 'P')) {
                ++pos_;
            } else if (c == '\'' && c_like() && is_identifier_char(at(pos_ + 1))) {
                ++pos_;  // a digit separator: 1'000'000
            } else if (c == '.' && at(pos_ + 1) != '.' && (dialect_ != CDialect::rust || is_digit(at(pos_ + 1)))) {
                ++pos_;  // 1.5; in Rust 1.max(2) and 0..n are not decimals
            } else {
                break;
            }
        }
        push(CTokenKind::number, begin, line, column);
    }

    void identifier_or_prefixed_literal(std::size_t begin, std::size_t line, std::size_t column) {
        while (pos_ < code_.size() && is_identifier_char(code_[pos_])) ++pos_;
        const std::string_view word = code_.substr(begin, pos_ - begin);
        const char next = at(pos_);
        if (c_like()) {
            static constexpr std::array<std::string_view, 5> kPrefixes{"L", "u", "U", "u8", ""};
            static constexpr std::array<std::string_view, 5> kRawPrefixes{"R", "LR", "uR", "UR", "u8R"};
            if (next == '"' && std::find(kRawPrefixes.begin(), kRawPrefixes.end(), word) != kRawPrefixes.end())
                return cpp_raw_string(begin, line, column);
            if ((next == '"' || next == '\'') && std::find(kPrefixes.begin(), kPrefixes.end() - 1, word) != kPrefixes.end() - 1) {
                if (next == '"') return quoted_string(begin, line, column, word.size() + 1);
                return character(begin, line, column);
            }
        } else if (dialect_ == CDialect::rust) {
            if ((word == "r" || word == "br" || word == "cr") && (next == '"' || next == '#'))
                return rust_raw_string(begin, line, column);
            if ((word == "b" || word == "c") && next == '"') return quoted_string(begin, line, column, word.size() + 1);
            if (word == "b" && next == '\'') return character(begin, line, column);
        }
        push(CTokenKind::identifier, begin, line, column);
    }

    void punct(std::size_t begin, std::size_t line, std::size_t column) {
        static constexpr std::array<std::string_view, 4> kMulti{"...", "::", "->", ".."};
        for (const auto multi : kMulti) {
            if (code_.substr(pos_, multi.size()) == multi) {
                pos_ += multi.size();
                push(CTokenKind::punct, begin, line, column);
                return;
            }
        }
        ++pos_;
        push(CTokenKind::punct, begin, line, column);
    }

    std::string_view code_;
    CDialect dialect_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t line_start_ = 0;
    bool in_directive_ = false;
    bool line_has_code_ = false;  // a token already began on this line: a `#` here is not a directive
    std::vector<CToken> tokens_;
};

}  // namespace

std::vector<CToken> tokenize_c_family(std::string_view code, CDialect dialect) {
    return CFamilyTokenizer(code, dialect).run();
}

}  // namespace e2beval::detail

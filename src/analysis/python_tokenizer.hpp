// Internal: the one Python tokenizer that CodeExtractor and SafetyScanner share, so both read code alike.
// Knows string prefixes, triple quotes, escapes, f-string fields, comments, brackets and line continuations.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace e2beval::detail {

enum class PyTokenKind { name, number, string, op, newline };

struct PyToken {
    PyTokenKind kind = PyTokenKind::op;
    std::string_view text;  // a view into the tokenized code
    std::size_t line = 0;    // 1-based
    std::size_t column = 0;  // 1-based, in bytes
    bool starts_logical_line = false;  // first token of a statement line (not a continuation)
    std::size_t indent = 0;            // indentation width of that line (tabs to multiples of 8)
};

// The name or the operator `text` (shared by extract.cpp and safety.cpp).
inline bool is_name(const PyToken& token, std::string_view text) {
    return token.kind == PyTokenKind::name && token.text == text;
}
inline bool is_op(const PyToken& token, std::string_view text) {
    return token.kind == PyTokenKind::op && token.text == text;
}

struct PyTokens {
    std::vector<PyToken> tokens;
    // Tokens of the expressions inside f-string `{...}` fields, each field followed by a newline token.
    // Kept apart so that a call like open(f"/etc/{name}") still sees the string as open's first argument.
    std::vector<PyToken> fstring_field_tokens;
    // Per physical line (index line - 1): true when the line continues the previous one (open bracket,
    // triple-quoted string, backslash) rather than starting a statement of its own.
    std::vector<bool> line_continues;
    bool unterminated_string = false;
    bool unbalanced_brackets = false;
};

namespace python_tokenizer_internal {

inline bool is_identifier_start(char c) noexcept {
    const auto byte = static_cast<unsigned char>(c);
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || byte >= 0x80;
}

inline bool is_identifier_char(char c) noexcept { return is_identifier_start(c) || (c >= '0' && c <= '9'); }

inline bool is_string_prefix(std::string_view word) noexcept {
    if (word.empty() || word.size() > 2) return false;
    bool raw = false;
    bool other = false;
    for (char c : word) {
        switch (c) {
            case 'r': case 'R':
                if (raw) return false;
                raw = true;
                break;
            case 'b': case 'B': case 'f': case 'F': case 'u': case 'U': case 't': case 'T':
                if (other) return false;
                other = true;
                break;
            default: return false;
        }
    }
    return !(word.size() == 2 && (word.find_first_of("uU") != std::string_view::npos));
}

class Tokenizer {
public:
    explicit Tokenizer(std::string_view code) : code_(code) {
        result_.line_continues.push_back(false);
        result_.tokens.reserve(code.size() / 4 + 16);  // about one token per four bytes of typical source
    }

    PyTokens run() && {
        scan(code_.size(), false, result_.tokens);
        return std::move(result_);
    }

private:
    std::size_t column() const noexcept { return pos_ - line_start_ + 1; }

    void begin_new_line(bool continues) {
        ++line_;
        line_start_ = pos_;
        result_.line_continues.push_back(continues);
    }

    void push(std::vector<PyToken>& out, PyTokenKind kind, std::size_t begin, std::size_t line,
              std::size_t column_at) {
        PyToken token;
        token.kind = kind;
        token.text = code_.substr(begin, pos_ - begin);
        token.line = line;
        token.column = column_at;
        if (pending_line_start_) {
            token.starts_logical_line = true;
            token.indent = pending_indent_;
            pending_line_start_ = false;
        }
        out.push_back(token);
    }

    // Tokenizes [pos_, end). `nested` is an f-string field: no statements, no newline tokens.
    void scan(std::size_t end, bool nested, std::vector<PyToken>& out) {
        std::size_t depth = 0;
        bool at_line_start = !nested;
        bool line_has_tokens = false;
        while (pos_ < end) {
            if (at_line_start) {
                at_line_start = false;
                std::size_t width = 0;
                while (pos_ < end && (code_[pos_] == ' ' || code_[pos_] == '\t' || code_[pos_] == '\f')) {
                    if (code_[pos_] == '\t') width = (width / 8 + 1) * 8;
                    else if (code_[pos_] == '\f') width = 0;
                    else ++width;
                    ++pos_;
                }
                if (pos_ < end && code_[pos_] != '\n' && code_[pos_] != '\r' && code_[pos_] != '#') {
                    pending_line_start_ = true;
                    pending_indent_ = width;
                }
                continue;
            }
            const char c = code_[pos_];
            if (c == '\n') {
                if (!nested && depth == 0 && line_has_tokens) {
                    const std::size_t begin = pos_;
                    const std::size_t line = line_;
                    const std::size_t col = column();
                    ++pos_;
                    push(out, PyTokenKind::newline, begin, line, col);
                } else {
                    ++pos_;
                }
                const bool statement_ends = !nested && depth == 0;
                begin_new_line(!statement_ends);
                if (statement_ends) {
                    at_line_start = true;
                    line_has_tokens = false;
                }
            } else if (c == '\\' && pos_ + 1 < end &&
                       (code_[pos_ + 1] == '\n' || (code_[pos_ + 1] == '\r' && pos_ + 2 < end && code_[pos_ + 2] == '\n'))) {
                // Only "\\\n" and "\\\r\n" continue a line: a lone '\r' is no line break for split_lines either.
                pos_ += code_[pos_ + 1] == '\r' ? 3 : 2;
                begin_new_line(true);
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\\') {
                ++pos_;
            } else if (c == '#') {
                while (pos_ < end && code_[pos_] != '\n') ++pos_;
            } else if (c == '\'' || c == '"') {
                scan_string(pos_, 0, end, out);
                line_has_tokens = true;
            } else if (is_identifier_start(c)) {
                const std::size_t begin = pos_;
                const std::size_t col = column();
                while (pos_ < end && is_identifier_char(code_[pos_])) ++pos_;
                const std::string_view word = code_.substr(begin, pos_ - begin);
                if (pos_ < end && (code_[pos_] == '\'' || code_[pos_] == '"') && is_string_prefix(word)) {
                    pos_ = begin;
                    scan_string(begin, word.size(), end, out);
                } else {
                    push(out, PyTokenKind::name, begin, line_, col);
                }
                line_has_tokens = true;
            } else if ((c >= '0' && c <= '9') || (c == '.' && pos_ + 1 < end && code_[pos_ + 1] >= '0' &&
                                                  code_[pos_ + 1] <= '9')) {
                const std::size_t begin = pos_;
                const std::size_t col = column();
                while (pos_ < end) {
                    const char d = code_[pos_];
                    const bool after_exponent = pos_ > begin && (code_[pos_ - 1] == 'e' || code_[pos_ - 1] == 'E');
                    const bool hexadecimal = code_.substr(begin, 2) == "0x" || code_.substr(begin, 2) == "0X";
                    const bool exponent_sign = (d == '+' || d == '-') && after_exponent && !hexadecimal;
                    if (!is_identifier_char(d) && d != '.' && !exponent_sign) break;
                    ++pos_;
                }
                push(out, PyTokenKind::number, begin, line_, col);
                line_has_tokens = true;
            } else {
                const std::size_t begin = pos_;
                const std::size_t col = column();
                ++pos_;
                if (c == '(' || c == '[' || c == '{') {
                    ++depth;
                } else if (c == ')' || c == ']' || c == '}') {
                    if (depth == 0) result_.unbalanced_brackets = true;
                    else --depth;
                }
                push(out, PyTokenKind::op, begin, line_, col);
                line_has_tokens = true;
            }
        }
        if (depth != 0) result_.unbalanced_brackets = true;
    }

    // A string literal starting at `begin` (its prefix `prefix_length` bytes long); ends before `end`.
    void scan_string(std::size_t begin, std::size_t prefix_length, std::size_t end, std::vector<PyToken>& out) {
        const std::size_t start_line = line_;
        const std::size_t start_column = column();
        // Field tokens are scanned first; the statement start belongs to the string token itself.
        const bool starts_logical_line = pending_line_start_;
        pending_line_start_ = false;
        const std::string_view prefix = code_.substr(begin, prefix_length);
        const bool formatted = prefix.find_first_of("fFtT") != std::string_view::npos;
        pos_ = begin + prefix_length;
        const char quote = code_[pos_];
        const bool triple = pos_ + 2 < end && code_[pos_ + 1] == quote && code_[pos_ + 2] == quote;
        pos_ += triple ? 3 : 1;
        bool terminated = false;
        while (pos_ < end) {
            const char c = code_[pos_];
            if (c == '\\') {
                // Even raw strings cannot end on an escaped quote, so skipping the next byte is right for both.
                ++pos_;
                if (pos_ < end) {
                    const bool newline = code_[pos_] == '\n';
                    ++pos_;
                    if (newline) begin_new_line(true);
                }
            } else if (c == '\n') {
                if (!triple) break;
                ++pos_;
                begin_new_line(true);
            } else if (c == quote && (!triple || (pos_ + 2 < end && code_[pos_ + 1] == quote && code_[pos_ + 2] == quote))) {
                pos_ += triple ? 3 : 1;
                terminated = true;
                break;
            } else if (formatted && c == '{') {
                if (pos_ + 1 < end && code_[pos_ + 1] == '{') {
                    pos_ += 2;
                } else {
                    ++pos_;
                    const std::size_t field_end = find_field_end(pos_, end, triple);
                    scan(field_end, true, result_.fstring_field_tokens);
                    PyToken separator;
                    separator.kind = PyTokenKind::newline;
                    separator.line = line_;
                    separator.column = column();
                    result_.fstring_field_tokens.push_back(separator);
                    if (pos_ < end && code_[pos_] == '}') ++pos_;
                }
            } else {
                ++pos_;
            }
        }
        if (!terminated) result_.unterminated_string = true;
        pending_line_start_ = starts_logical_line;
        push(out, PyTokenKind::string, begin, start_line, start_column);
    }

    // The position of the `}` closing an f-string field that starts at `from`, skipping nested brackets
    // and nested string literals (Python 3.12 lets them reuse the outer quote).
    std::size_t find_field_end(std::size_t from, std::size_t end, bool multiline) const noexcept {
        std::size_t depth = 0;
        std::size_t pos = from;
        while (pos < end) {
            const char c = code_[pos];
            if (c == '\n' && !multiline) return pos;
            if (c == '(' || c == '[' || c == '{') {
                ++depth;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth == 0) {
                    if (c == '}') return pos;
                } else {
                    --depth;
                }
            } else if (c == '\'' || c == '"') {
                const bool triple = pos + 2 < end && code_[pos + 1] == c && code_[pos + 2] == c;
                pos += triple ? 3 : 1;
                while (pos < end) {
                    if (code_[pos] == '\\') {
                        pos += 2;
                        continue;
                    }
                    if (code_[pos] == '\n' && !triple) break;
                    if (code_[pos] == c && (!triple || (pos + 2 < end && code_[pos + 1] == c && code_[pos + 2] == c))) {
                        pos += triple ? 3 : 1;
                        break;
                    }
                    ++pos;
                }
                continue;
            }
            ++pos;
        }
        return end;
    }

    std::string_view code_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t line_start_ = 0;
    bool pending_line_start_ = false;
    std::size_t pending_indent_ = 0;
    PyTokens result_;
};

}  // namespace python_tokenizer_internal

inline PyTokens tokenize_python(std::string_view code) {
    return python_tokenizer_internal::Tokenizer(code).run();
}

// The characters between the quotes of a string token (escapes left as written).
inline std::string_view string_literal_body(std::string_view literal) noexcept {
    std::size_t start = 0;
    while (start < literal.size() && literal[start] != '\'' && literal[start] != '"') ++start;
    if (start >= literal.size()) return {};
    const char quote = literal[start];
    const bool triple = literal.size() >= start + 6 && literal[start + 1] == quote && literal[start + 2] == quote;
    const std::size_t quote_length = triple ? 3 : 1;
    std::size_t body_end = literal.size();
    if (body_end >= start + 2 * quote_length && literal.substr(body_end - quote_length, quote_length) ==
                                                    literal.substr(start, quote_length))
        body_end -= quote_length;
    return literal.substr(start + quote_length, body_end - start - quote_length);
}

}  // namespace e2beval::detail

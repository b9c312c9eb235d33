// Internal: a JavaScript tokenizer for SafetyScanner: strings, template literals (with ${} fields tokenized as
// code), regex literals and comments, so that rules only ever see code tokens.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/python_tokenizer.hpp"
#include "analysis/string_escapes.hpp"

namespace e2beval::detail {

enum class JsTokenKind { name, string, number, punct, regex };

struct JsToken {
    JsTokenKind kind = JsTokenKind::punct;
    std::string_view text;
    std::size_t line = 0;
    std::size_t column = 0;
};

// Enough of JavaScript's lexical grammar to tell code from strings, template text, comments and regexes.
class JsTokenizer {
public:
    explicit JsTokenizer(std::string_view code) : code_(code) {}

    std::vector<JsToken> run() && {
        scan(code_.size(), false);
        return std::move(tokens_);
    }

private:
    std::size_t column() const noexcept { return pos_ - line_start_ + 1; }

    void newline_at(std::size_t newline_pos) {
        ++line_;
        line_start_ = newline_pos + 1;
    }

    void push(JsTokenKind kind, std::size_t begin, std::size_t line, std::size_t col) {
        tokens_.push_back({kind, code_.substr(begin, pos_ - begin), line, col});
    }

    // A '/' starts a regex literal unless it follows something that ends an expression.
    bool regex_allowed() const {
        if (tokens_.empty()) return true;
        const JsToken& last = tokens_.back();
        if (last.kind == JsTokenKind::punct) return last.text != ")" && last.text != "]" && last.text != "}";
        if (last.kind == JsTokenKind::name) {
            static constexpr std::array<std::string_view, 14> kKeywords{
                "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
                "instanceof", "yield", "await"};
            return std::find(kKeywords.begin(), kKeywords.end(), last.text) != kKeywords.end();
        }
        return false;
    }

    // Scans [pos_, end); `in_template_field` stops at the `}` closing a `${...}` field.
    void scan(std::size_t end, bool in_template_field) {
        std::size_t depth = 0;
        while (pos_ < end) {
            const char c = code_[pos_];
            const std::size_t begin = pos_;
            const std::size_t line = line_;
            const std::size_t col = column();
            if (c == '\n') {
                newline_at(pos_);
                ++pos_;
            } else if (c == ' ' || c == '\t' || c == '\r') {
                ++pos_;
            } else if (c == '/' && pos_ + 1 < end && code_[pos_ + 1] == '/') {
                while (pos_ < end && code_[pos_] != '\n') ++pos_;
            } else if (c == '/' && pos_ + 1 < end && code_[pos_ + 1] == '*') {
                pos_ += 2;
                while (pos_ < end && !(code_[pos_] == '*' && pos_ + 1 < end && code_[pos_ + 1] == '/')) {
                    if (code_[pos_] == '\n') newline_at(pos_);
                    ++pos_;
                }
                pos_ = std::min(pos_ + 2, end);
            } else if (c == '\'' || c == '"') {
                ++pos_;
                while (pos_ < end && code_[pos_] != c && code_[pos_] != '\n') {
                    if (code_[pos_] == '\\' && pos_ + 1 < end) {
                        if (code_[pos_ + 1] == '\n') newline_at(pos_ + 1);
                        ++pos_;
                    }
                    ++pos_;
                }
                // An unterminated string ends at its line, so the next line is still read as code.
                if (pos_ < end && code_[pos_] == c) ++pos_;
                push(JsTokenKind::string, begin, line, col);
            } else if (c == '`') {
                scan_template(end);
                push(JsTokenKind::string, begin, line, col);
            } else if (c == '/' && regex_allowed()) {
                ++pos_;
                bool in_class = false;
                while (pos_ < end && code_[pos_] != '\n') {
                    const char r = code_[pos_];
                    if (r == '\\') {
                        pos_ += 2;
                        continue;
                    }
                    ++pos_;
                    if (r == '[') in_class = true;
                    else if (r == ']') in_class = false;
                    else if (r == '/' && !in_class) break;
                }
                while (pos_ < end && python_identifier_char(code_[pos_])) ++pos_;
                pos_ = std::min(pos_, end);
                push(JsTokenKind::regex, begin, line, col);
            } else if (python_identifier_start(c) || c == '$') {
                while (pos_ < end && (python_identifier_char(code_[pos_]) || code_[pos_] == '$')) ++pos_;
                push(JsTokenKind::name, begin, line, col);
            } else if (c >= '0' && c <= '9') {
                while (pos_ < end && (python_identifier_char(code_[pos_]) || code_[pos_] == '.')) ++pos_;
                push(JsTokenKind::number, begin, line, col);
            } else {
                if (in_template_field && c == '}' && depth == 0) return;
                if (c == '{' || c == '(' || c == '[') ++depth;
                if ((c == '}' || c == ')' || c == ']') && depth > 0) --depth;
                ++pos_;
                push(JsTokenKind::punct, begin, line, col);
            }
        }
    }

    static bool python_identifier_start(char c) { return detail::python_tokenizer_internal::is_identifier_start(c); }
    static bool python_identifier_char(char c) { return detail::python_tokenizer_internal::is_identifier_char(c); }

    // A template literal from its opening backtick; `${...}` fields are code and are tokenized in place.
    void scan_template(std::size_t end) {
        ++pos_;
        while (pos_ < end) {
            const char c = code_[pos_];
            if (c == '\\') {
                if (pos_ + 1 < end && code_[pos_ + 1] == '\n') newline_at(pos_ + 1);
                pos_ += 2;
            } else if (c == '`') {
                ++pos_;
                return;
            } else if (c == '$' && pos_ + 1 < end && code_[pos_ + 1] == '{') {
                pos_ += 2;
                // The field's tokens land before the template's own token; rules only look at code tokens.
                scan(end, true);
                if (pos_ < end) ++pos_;  // the closing '}'
            } else {
                if (c == '\n') newline_at(pos_);
                ++pos_;
            }
        }
        pos_ = std::min(pos_, end);
    }

    std::string_view code_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t line_start_ = 0;
    std::vector<JsToken> tokens_;
};

// The value of a string literal token with its escapes resolved; nullopt for a template literal with ${} fields.
inline std::optional<std::string> js_literal_value(const JsToken& token) {
    if (token.kind != JsTokenKind::string || token.text.size() < 2) return std::nullopt;
    if (token.text.front() == '`' && token.text.find("${") != std::string_view::npos) return std::nullopt;
    return unescape(token.text.substr(1, token.text.size() - 2));
}

inline bool js_punct(const std::vector<JsToken>& tokens, std::size_t i, std::string_view text) {
    return i < tokens.size() && tokens[i].kind == JsTokenKind::punct && tokens[i].text == text;
}

// The string expression [begin, end) of literals joined by `+`; nullopt for anything else. `ends` receives where
// each piece after the first starts in the value (to tell a word split across pieces).
inline std::optional<std::string> js_constant_string(const std::vector<JsToken>& tokens, std::size_t begin,
                                                     std::size_t end, std::vector<std::size_t>* ends = nullptr) {
    std::string value;
    bool expect_operand = true;
    for (std::size_t i = begin; i < end; ++i) {
        if (!expect_operand) {
            if (!js_punct(tokens, i, "+")) return std::nullopt;
            expect_operand = true;
            continue;
        }
        if (i >= tokens.size()) return std::nullopt;
        const auto piece = js_literal_value(tokens[i]);
        if (!piece) return std::nullopt;
        if (ends && !value.empty()) ends->push_back(value.size());
        value += *piece;
        expect_operand = false;
    }
    if (expect_operand) return std::nullopt;
    return value;
}

// Whether [begin, end) decodes text at run time (fromCharCode, atob, Buffer, escapes, reversal): what hides a
// module name, code or a path from these checks.
inline bool js_has_obfuscation(const std::vector<JsToken>& tokens, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end && i < tokens.size(); ++i) {
        const JsToken& token = tokens[i];
        if (token.kind == JsTokenKind::name &&
            (token.text == "fromCharCode" || token.text == "atob" || token.text == "Buffer" ||
             token.text == "unescape" || token.text == "decodeURIComponent" || token.text == "reverse" ||
             token.text == "fromCodePoint" || token.text == "btoa"))
            return true;
        if (token.kind == JsTokenKind::string &&
            (token.text.find("\\x") != std::string_view::npos || token.text.find("\\u") != std::string_view::npos ||
             token.text == "'base64'" || token.text == "\"base64\""))
            return true;
    }
    return false;
}

}  // namespace e2beval::detail

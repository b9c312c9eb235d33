// Internal: a bash tokenizer for SafetyScanner: words with quoting resolved, operators, newlines; comments and
// here-document bodies skipped; $(...) command substitutions tokenized as commands of their own.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace e2beval::detail {

enum class ShTokenKind { word, op, newline };

struct ShToken {
    ShTokenKind kind = ShTokenKind::word;
    std::string value;  // a word with its quotes removed; an operator as written
    bool quoted = false;
    std::size_t line = 0;
    std::size_t column = 0;
};

// Words with quoting resolved, operators, newlines; comments and here-document bodies are skipped, and the
// commands inside $(...) are tokenized in place so that they are checked too.
class ShTokenizer {
public:
    explicit ShTokenizer(std::string_view code) : code_(code) {}

    std::vector<ShToken> run() && {
        scan(code_.size(), false);
        return std::move(tokens_);
    }

private:
    std::size_t column() const noexcept { return pos_ - line_start_ + 1; }

    void newline_at(std::size_t newline_pos) {
        ++line_;
        line_start_ = newline_pos + 1;
    }

    static bool is_operator_char(char c) { return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>'; }

    void skip_here_documents(std::size_t end) {
        for (const auto& [delimiter, strip_tabs] : pending_here_documents_) {
            while (pos_ < end) {
                const std::size_t line_end = std::min(code_.find('\n', pos_), end);
                std::string_view body_line = code_.substr(pos_, line_end - pos_);
                if (strip_tabs) body_line.remove_prefix(std::min(body_line.find_first_not_of('\t'), body_line.size()));
                if (!body_line.empty() && body_line.back() == '\r') body_line.remove_suffix(1);
                pos_ = line_end;
                if (pos_ < end) {
                    newline_at(pos_);
                    ++pos_;
                }
                if (body_line == delimiter) break;
            }
        }
        pending_here_documents_.clear();
    }

    void scan(std::size_t end, bool in_substitution) {
        std::size_t depth = 0;
        while (pos_ < end) {
            const char c = code_[pos_];
            const std::size_t line = line_;
            const std::size_t col = column();
            if (c == '\n') {
                tokens_.push_back({ShTokenKind::newline, "\n", false, line, col});
                newline_at(pos_);
                ++pos_;
                skip_here_documents(end);
            } else if (c == ' ' || c == '\t' || c == '\r') {
                ++pos_;
            } else if (c == '\\' && pos_ + 1 < end && code_[pos_ + 1] == '\n') {
                newline_at(pos_ + 1);
                pos_ += 2;
            } else if (c == '#') {
                while (pos_ < end && code_[pos_] != '\n') ++pos_;
            } else if (is_operator_char(c)) {
                if (in_substitution && c == ')' && depth == 0) return;
                static constexpr std::array<std::string_view, 13> kOperators{
                    "<<<", "<<-", "&&", "||", ";;", "<<", ">>", "<>", ">&", "<&", "&>", ">|", "|&"};
                std::string_view op = code_.substr(pos_, 1);
                for (const auto candidate : kOperators)
                    if (pos_ + candidate.size() <= end && code_.substr(pos_, candidate.size()) == candidate) {
                        op = candidate;
                        break;
                    }
                if (op == "(") ++depth;
                if (op == ")" && depth > 0) --depth;
                pos_ += op.size();
                tokens_.push_back({ShTokenKind::op, std::string(op), false, line, col});
                if (op == "<<" || op == "<<-") expect_here_delimiter_ = op == "<<-" ? 2 : 1;
            } else {
                scan_word(end, line, col);
            }
        }
    }

    void scan_word(std::size_t end, std::size_t line, std::size_t col) {
        ShToken word{ShTokenKind::word, "", false, line, col};
        while (pos_ < end) {
            const char c = code_[pos_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || is_operator_char(c)) break;
            if (c == '\\' && pos_ + 1 < end) {
                if (code_[pos_ + 1] == '\n') newline_at(pos_ + 1);
                else word.value += code_[pos_ + 1];
                word.quoted = true;
                pos_ += 2;
            } else if (c == '\'') {
                word.quoted = true;
                ++pos_;
                while (pos_ < end && code_[pos_] != '\'') {
                    if (code_[pos_] == '\n') newline_at(pos_);
                    word.value += code_[pos_++];
                }
                if (pos_ < end) ++pos_;
            } else if (c == '"') {
                word.quoted = true;
                ++pos_;
                while (pos_ < end && code_[pos_] != '"') {
                    if (code_[pos_] == '\\' && pos_ + 1 < end) {
                        word.value += code_[pos_ + 1];
                        pos_ += 2;
                        continue;
                    }
                    if (code_[pos_] == '\n') newline_at(pos_);
                    word.value += code_[pos_++];
                }
                if (pos_ < end) ++pos_;
            } else if (c == '$' && pos_ + 1 < end && code_[pos_ + 1] == '(' &&
                       !(pos_ + 2 < end && code_[pos_ + 2] == '(')) {
                // Command substitution: its commands run, so they are tokenized as commands of their own.
                tokens_.push_back({ShTokenKind::op, "$(", false, line_, column()});
                pos_ += 2;
                scan(end, true);
                tokens_.push_back({ShTokenKind::op, ")", false, line_, column()});
                if (pos_ < end) ++pos_;
                word.value += "$(...)";
            } else {
                word.value += c;
                ++pos_;
            }
        }
        if (expect_here_delimiter_ != 0) {
            pending_here_documents_.emplace_back(word.value, expect_here_delimiter_ == 2);
            expect_here_delimiter_ = 0;
        }
        tokens_.push_back(std::move(word));
    }

    std::string_view code_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t line_start_ = 0;
    int expect_here_delimiter_ = 0;  // 1 after "<<", 2 after "<<-" (tabs stripped from the body)
    std::vector<std::pair<std::string, bool>> pending_here_documents_;
    std::vector<ShToken> tokens_;
};


}  // namespace e2beval::detail

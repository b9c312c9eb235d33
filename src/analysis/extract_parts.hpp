// Internal: the parts of CodeExtractor (extract.cpp), one concern per file: the lines of an answer (here),
// its fenced blocks (extract_fences.cpp), which code defines a function in each language
// (extract_definitions.cpp), a Python program's top-level statements and names (python_items.cpp), helpers
// gathered from other blocks (extract_assembly.cpp), example code dropped (extract_examples.cpp), and Python
// code written into prose without a fence (extract_prose.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/python_tokenizer.hpp"
#include "e2beval/analysis/extract.hpp"

namespace e2beval::detail::extraction {

// ----- Lines

inline std::string normalise_newlines(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a byte-order mark some clients prepend
    if (text.find('\r') == std::string_view::npos) return std::string(text);
    std::string result;
    result.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
        result += text[i];
    }
    return result;
}

// Lines without their '\n'; a final '\n' does not start another line.
inline std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

inline bool is_blank(std::string_view text) noexcept {
    return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

inline std::size_t leading_whitespace(std::string_view line) noexcept {
    const std::size_t pos = line.find_first_not_of(" \t");
    return pos == std::string_view::npos ? line.size() : pos;
}

inline std::string_view trim(std::string_view text) noexcept {
    const std::size_t first = text.find_first_not_of(" \t\r\n\f\v");
    if (first == std::string_view::npos) return {};
    const std::size_t last = text.find_last_not_of(" \t\r\n\f\v");
    return text.substr(first, last - first + 1);
}

// Removes up to `count` leading spaces or tabs: the indentation of a fence or of a run of code in prose.
inline std::string_view strip_indentation(std::string_view line, std::size_t count) noexcept {
    return line.substr(std::min(count, leading_whitespace(line)));
}

inline std::string join_lines(const std::vector<std::string_view>& lines, std::size_t first, std::size_t last,
                       std::size_t indentation) {
    std::string result;
    for (std::size_t i = first; i <= last && i < lines.size(); ++i) {
        result.append(strip_indentation(lines[i], indentation));
        result += '\n';
    }
    return result;
}

// ----- Fenced blocks (extract_fences.cpp)

struct FoundBlock {
    CodeBlock block;
    std::string fence_text;  // "```python", "~~~", as written, for explanations
    bool repl_session = false;
};

// Every fenced block (``` or ~~~, any indentation, closed or not) in the answer's lines.
std::vector<FoundBlock> find_fenced_blocks(const std::vector<std::string_view>& lines);

// ----- Definitions (extract_definitions.cpp)

// A cursor over one line or snippet for the few small grammars below (hand-written rather than std::regex:
// no backtracking blow-up on a model's 10,000-character line).
class Cursor {
public:
    explicit Cursor(std::string_view text, std::size_t pos = 0) : text_(text), pos_(pos) {}

    std::size_t position() const noexcept { return pos_; }
    bool at_end() const noexcept { return pos_ >= text_.size(); }
    char peek() const noexcept { return at_end() ? '\0' : text_[pos_]; }

    bool spaces() noexcept {
        const std::size_t start = pos_;
        while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
        return pos_ > start;
    }
    bool literal(std::string_view expected) noexcept {
        if (text_.substr(pos_, expected.size()) != expected) return false;
        pos_ += expected.size();
        return true;
    }
    // A keyword or name: the literal not followed by an identifier character.
    bool word(std::string_view expected) noexcept {
        const std::size_t start = pos_;
        if (literal(expected) && (at_end() || !detail::python_tokenizer_internal::is_identifier_char(peek())))
            return true;
        pos_ = start;
        return false;
    }
    bool identifier() noexcept {
        if (at_end() || !detail::python_tokenizer_internal::is_identifier_start(peek())) return false;
        while (!at_end() && detail::python_tokenizer_internal::is_identifier_char(peek())) ++pos_;
        return true;
    }
    bool dotted_name() noexcept {
        if (!identifier()) return false;
        while (peek() == '.') {
            ++pos_;
            if (!identifier()) return false;
        }
        return true;
    }
    // Optional " as name".
    bool alias() noexcept {
        const std::size_t start = pos_;
        if (spaces() && word("as") && spaces() && identifier()) return true;
        pos_ = start;
        return true;
    }
    bool rest_is_blank_or_comment() noexcept {
        spaces();
        return at_end() || peek() == '#';
    }

private:
    std::string_view text_;
    std::size_t pos_;
};

// The line of `def name(` (also `async def name(`), if the code defines that function.
std::optional<std::size_t> python_definition_line(std::string_view code, std::string_view name);
// Whether `code` defines the function `name` in `language` (a heuristic for the C family; see the definition).
bool defines_function(std::string_view code, Language language, std::string_view name);

// ----- A Python program's top-level statements and the names they bind and use (python_items.cpp)

struct TopLevelItem {
    enum class Kind { import, future_import, definition, assignment, other };
    Kind kind = Kind::other;
    std::vector<std::string> names;       // names the statement binds at module level
    std::set<std::string> references;     // names it uses (not after a '.')
    std::size_t first_line = 0;           // 1-based, decorators included
    std::size_t last_line = 0;            // 1-based, trailing blank and comment lines excluded
    std::string text;
    std::size_t token_begin = 0;          // the statement's tokens in the tokenized code, decorators included
    std::size_t token_end = 0;
};

// The top-level statements of `code`, already tokenized; `with_references` fills TopLevelItem::references.
std::vector<TopLevelItem> top_level_items(std::string_view code, const PyTokens& tokenized,
                                          bool with_references = true);
std::vector<TopLevelItem> top_level_items(std::string_view code);
// Names the code provides itself: module-level bindings and every function or class it defines.
std::set<std::string> defined_names(std::string_view code, const std::vector<TopLevelItem>& items);
// Names the code binds anywhere (assignment targets, loop and `as` targets, parameters).
std::set<std::string> bound_names(std::string_view code);
// Names the code uses (not after a '.'), f-string fields included.
std::set<std::string> referenced_names(std::string_view code);

// ----- Helpers gathered from other blocks (extract_assembly.cpp)

struct CodeSource {
    std::size_t index = 0;  // block index (fenced) or run index (prose)
    std::string_view code;
};

struct AssembledCode {
    std::string code;
    std::vector<std::size_t> sources_used;
    std::string note;  // "; plus from block 1: import math, is_prime"
};

// The chosen code, preceded by the imports and helper definitions of the other sources that it uses but does
// not define itself (transitively). `source_word` names a source in the note: "block", "run".
AssembledCode assemble_with_helpers(std::string_view chosen, const std::vector<CodeSource>& others,
                                    std::string_view source_word);

// ----- Examples dropped (extract_examples.cpp)

// The code without the `__main__` section and the example statements (unless the options keep them); `note`
// says what was dropped.
std::string drop_examples(const std::string& code, const ExtractOptions& options, std::string& note);

// ----- Python code in prose, without a fence (extract_prose.cpp)

// True when the output is a Python program with no prose at all (a model that answers with bare code).
bool looks_like_python_program(std::string_view text, const std::vector<std::string_view>& lines);
struct CodeRun {
    std::size_t first_line = 0;  // 1-based, in the normalised output
    std::size_t last_line = 0;
    std::string code;  // dedented by the run's indentation
    bool has_definition = false;
};

// Runs of Python code in prose, in order.
std::vector<CodeRun> find_code_runs(std::string_view text, const std::vector<std::string_view>& lines);

}  // namespace e2beval::detail::extraction

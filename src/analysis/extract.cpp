// CodeExtractor: finds the code to run in a model's answer — fenced blocks first, then definitions in prose.
// Every result says how it was found (method, blocks used, explanation) so that a verdict can explain itself.
#include "e2beval/analysis/extract.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>
#include <set>
#include <utility>

#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"
#include "analysis/python_tokenizer.hpp"

namespace e2beval {

std::string_view to_string(ExtractionMethod method) noexcept {
    switch (method) {
        case ExtractionMethod::fenced_block: return "fenced_block";
        case ExtractionMethod::function_definition: return "function_definition";
        case ExtractionMethod::any_definition: return "any_definition";
        case ExtractionMethod::whole_output: return "whole_output";
    }
    return "unknown";
}

namespace {

using detail::PyToken;
using detail::PyTokenKind;

// ---------------------------------------------------------------------------------------------------------
// Lines

std::string normalise_newlines(std::string_view text) {
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
std::vector<std::string_view> split_lines(std::string_view text) {
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

bool is_blank(std::string_view text) noexcept {
    return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

std::size_t leading_whitespace(std::string_view line) noexcept {
    const std::size_t pos = line.find_first_not_of(" \t");
    return pos == std::string_view::npos ? line.size() : pos;
}

std::string_view trim(std::string_view text) noexcept {
    const std::size_t first = text.find_first_not_of(" \t\r\n\f\v");
    if (first == std::string_view::npos) return {};
    const std::size_t last = text.find_last_not_of(" \t\r\n\f\v");
    return text.substr(first, last - first + 1);
}

// Removes up to `count` leading spaces or tabs: the indentation of a fence or of a run of code in prose.
std::string_view strip_indentation(std::string_view line, std::size_t count) noexcept {
    return line.substr(std::min(count, leading_whitespace(line)));
}

std::string join_lines(const std::vector<std::string_view>& lines, std::size_t first, std::size_t last,
                       std::size_t indentation) {
    std::string result;
    for (std::size_t i = first; i <= last && i < lines.size(); ++i) {
        result.append(strip_indentation(lines[i], indentation));
        result += '\n';
    }
    return result;
}

// ---------------------------------------------------------------------------------------------------------
// Fences

struct Fence {
    char marker = '`';
    std::size_t length = 0;
    std::size_t indentation = 0;
    std::string_view info;
};

std::optional<Fence> opening_fence(std::string_view line) {
    Fence fence;
    fence.indentation = leading_whitespace(line);
    const std::string_view rest = line.substr(fence.indentation);
    if (rest.empty() || (rest[0] != '`' && rest[0] != '~')) return std::nullopt;
    fence.marker = rest[0];
    fence.length = std::min(rest.find_first_not_of(fence.marker), rest.size());
    if (fence.length < 3) return std::nullopt;
    fence.info = trim(rest.substr(fence.length));
    // CommonMark: a backtick fence's info string has no backtick, so ```x``` inline in a line is not a fence.
    if (fence.marker == '`' && fence.info.find('`') != std::string_view::npos) return std::nullopt;
    return fence;
}

bool closes_fence(std::string_view line, const Fence& fence) {
    const std::string_view rest = line.substr(leading_whitespace(line));
    const std::size_t run = std::min(rest.find_first_not_of(fence.marker), rest.size());
    return run >= fence.length && is_blank(rest.substr(run));
}

// "python title=x.py" -> "python"; "{.python}" and "python:main.py" keep their spelling as the tag.
std::string_view first_word(std::string_view info) {
    const std::size_t end = info.find_first_of(" \t");
    return info.substr(0, end);
}

std::optional<Language> language_of_tag(std::string_view tag) {
    std::string_view cleaned = tag;
    while (!cleaned.empty() && (cleaned.front() == '{' || cleaned.front() == '.')) cleaned.remove_prefix(1);
    cleaned = cleaned.substr(0, cleaned.find_first_of(":,{}"));
    if (cleaned.empty()) return std::nullopt;
    return language_from_tag(cleaned);
}

struct FoundBlock {
    CodeBlock block;
    std::string fence_text;  // "```python", "~~~", as written, for explanations
    bool repl_session = false;
};

// A block written as an interactive session (`>>> ` and `... ` prompts, output lines in between) becomes the
// code typed at the prompts; the output lines are dropped.
std::string strip_repl_session(const std::string& code, bool& was_session) {
    const auto lines = split_lines(code);
    const auto first = std::find_if(lines.begin(), lines.end(), [](std::string_view line) { return !is_blank(line); });
    if (first == lines.end() || !(first->starts_with(">>> ") || *first == ">>>")) return code;
    was_session = true;
    std::string result;
    for (const auto line : lines) {
        if (line.starts_with(">>> ") || line.starts_with("... ")) result.append(line.substr(4)).append("\n");
        else if (line == ">>>" || line == "...") result += '\n';
    }
    return result;
}

std::vector<FoundBlock> find_fenced_blocks(const std::vector<std::string_view>& lines) {
    std::vector<FoundBlock> blocks;
    std::size_t i = 0;
    while (i < lines.size()) {
        const auto fence = opening_fence(lines[i]);
        if (!fence) {
            ++i;
            continue;
        }
        FoundBlock found;
        found.block.first_line = i + 1;
        found.block.tag = std::string(first_word(fence->info));
        found.block.language = language_of_tag(found.block.tag);
        found.fence_text = std::string(fence->length, fence->marker) + found.block.tag;
        std::size_t j = i + 1;
        while (j < lines.size() && !closes_fence(lines[j], *fence)) {
            found.block.code.append(strip_indentation(lines[j], fence->indentation));
            found.block.code += '\n';
            ++j;
        }
        found.block.terminated = j < lines.size();
        found.block.code = strip_repl_session(found.block.code, found.repl_session);
        blocks.push_back(std::move(found));
        i = j + 1;
    }
    return blocks;
}

// ---------------------------------------------------------------------------------------------------------
// Python structure, on tokens so that strings and comments never look like code

// The line of `def name(` (also `async def name(`), if the code defines that function.
std::optional<std::size_t> python_definition_line(std::string_view code, std::string_view name) {
    if (code.find(name) == std::string_view::npos) return std::nullopt;  // most blocks: no tokenizing needed
    const auto tokens = detail::tokenize_python(code).tokens;
    for (std::size_t i = 0; i + 2 < tokens.size(); ++i)
        if (is_name(tokens[i], "def") && is_name(tokens[i + 1], name) && is_op(tokens[i + 2], "("))
            return tokens[i].line;
    return std::nullopt;
}

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

bool is_word_boundary_before(std::string_view text, std::size_t pos) {
    if (pos == 0) return true;
    const char before = text[pos - 1];
    return !detail::python_tokenizer_internal::is_identifier_char(before) && before != '$' && before != '.';
}

bool defines_javascript_function(std::string_view code, std::string_view name) {
    for (std::size_t pos = 0; pos < code.size(); ++pos) {
        if (!is_word_boundary_before(code, pos)) continue;
        Cursor cursor(code, pos);
        // exports.name = ..., module.exports.name = ...
        Cursor exported(code, pos);
        if ((exported.literal("module.exports.") || exported.literal("exports.")) && exported.word(name)) {
            exported.spaces();
            if (exported.literal("=") && exported.peek() != '=') return true;
        }
        if (cursor.word("function")) {
            cursor.spaces();
            cursor.literal("*");
            cursor.spaces();
            if (cursor.word(name)) {
                cursor.spaces();
                if (cursor.literal("(")) return true;
            }
        } else if (cursor.word("const") || cursor.word("let") || cursor.word("var")) {
            if (cursor.spaces() && cursor.word(name)) {
                cursor.spaces();
                if (cursor.literal("=") && cursor.peek() != '=') return true;
            }
        }
    }
    return false;
}

bool defines_bash_function(std::string_view code, std::string_view name) {
    for (const auto line : split_lines(code)) {
        Cursor cursor(line);
        cursor.spaces();
        if (cursor.word("function") && cursor.spaces() && cursor.word(name)) return true;
        Cursor plain(line);
        plain.spaces();
        if (plain.word(name)) {
            plain.spaces();
            if (plain.literal("(")) {
                plain.spaces();
                if (plain.literal(")")) return true;
            }
        }
    }
    return false;
}

// A definition of `name` in a C-family language: Go's `func name(`, Rust's `fn name(` / `fn name<`, else the
// name followed by a parameter list and a body (`int name(int x) {`, `static long name(...) throws X {`, TypeScript's
// `name(x: number): number {`). A heuristic over the text, enough to choose the fenced block that defines it.
bool defines_c_family_function(std::string_view code, Language language, std::string_view name) {
    const std::string escaped = std::regex_replace(std::string(name), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
    std::string pattern;
    if (language == Language::go) pattern = R"(\bfunc\s+(\([^)]*\)\s*)?)" + escaped + R"(\s*[\[(])";
    else if (language == Language::rust) pattern = R"(\bfn\s+)" + escaped + R"(\s*[<(])";
    else pattern = R"((^|[^\w.$])[\w$]+[\w$<>\[\],:\s*&]*[\s*&>\]]\s*)" + escaped + R"(\s*\([^;{}]*\)[^;{}]*\{)";
    return std::regex_search(std::string(code), std::regex(pattern));
}

bool defines_function(std::string_view code, Language language, std::string_view name) {
    switch (language) {
        case Language::python: return python_definition_line(code, name).has_value();
        case Language::javascript: return defines_javascript_function(code, name);
        case Language::bash: return defines_bash_function(code, name);
        case Language::typescript: return defines_javascript_function(code, name) || defines_c_family_function(code, language, name);
        case Language::c:
        case Language::cpp:
        case Language::go:
        case Language::rust:
        case Language::java: return defines_c_family_function(code, language, name);
    }
    return false;
}

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

void add_references(const std::vector<PyToken>& tokens, std::size_t begin, std::size_t end,
                    std::set<std::string>& references) {
    for (std::size_t i = begin; i < end && i < tokens.size(); ++i) {
        if (tokens[i].kind != PyTokenKind::name) continue;
        if (i > 0 && is_op(tokens[i - 1], ".")) continue;
        references.insert(std::string(tokens[i].text));
    }
}

// Names bound by `import a.b as c, d` or `from m import (x as y, z)`; the tokens start at the keyword.
std::vector<std::string> imported_names(const std::vector<PyToken>& tokens, std::size_t begin, std::size_t end) {
    std::vector<std::string> names;
    std::size_t i = begin;
    const bool from_form = is_name(tokens[i], "from");
    if (from_form) {
        while (i < end && !is_name(tokens[i], "import")) ++i;
    }
    ++i;  // past "import"
    while (i < end) {
        if (tokens[i].kind == PyTokenKind::newline || is_op(tokens[i], ";")) break;
        if (tokens[i].kind != PyTokenKind::name) {
            ++i;
            continue;
        }
        std::string bound(tokens[i].text);
        ++i;
        while (!from_form && i + 1 < end && is_op(tokens[i], ".") && tokens[i + 1].kind == PyTokenKind::name)
            i += 2;  // "import a.b" binds "a"
        if (i + 1 < end && is_name(tokens[i], "as") && tokens[i + 1].kind == PyTokenKind::name) {
            bound = std::string(tokens[i + 1].text);
            i += 2;
        }
        names.push_back(std::move(bound));
    }
    return names;
}

std::vector<TopLevelItem> top_level_items(std::string_view code, const detail::PyTokens& tokenized,
                                          bool with_references = true) {
    const auto& tokens = tokenized.tokens;
    const auto lines = split_lines(code);

    std::vector<std::size_t> starts;  // token indexes of statements at indentation 0
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i].starts_logical_line && tokens[i].indent == 0) starts.push_back(i);

    std::vector<TopLevelItem> items;
    for (std::size_t s = 0; s < starts.size(); ++s) {
        TopLevelItem item;
        const std::size_t item_begin = starts[s];
        item.first_line = tokens[item_begin].line;
        // Decorators belong to the definition below them.
        while (is_op(tokens[starts[s]], "@") && s + 1 < starts.size()) ++s;
        const std::size_t statement = starts[s];
        const std::size_t item_end = s + 1 < starts.size() ? starts[s + 1] : tokens.size();
        std::size_t last_line = item_end < tokens.size() ? tokens[item_end].line - 1 : lines.size();
        last_line = std::min(std::max(last_line, tokens[statement].line), lines.size());
        while (last_line > tokens[statement].line &&
               (is_blank(lines[last_line - 1]) || lines[last_line - 1].starts_with("#")))
            --last_line;
        item.last_line = last_line;
        item.text = join_lines(lines, item.first_line - 1, item.last_line - 1, 0);

        const PyToken& keyword = tokens[statement];
        if (is_name(keyword, "import")) {
            item.kind = TopLevelItem::Kind::import;
            item.names = imported_names(tokens, statement, item_end);
        } else if (is_name(keyword, "from")) {
            const bool future = statement + 1 < item_end && is_name(tokens[statement + 1], "__future__");
            item.kind = future ? TopLevelItem::Kind::future_import : TopLevelItem::Kind::import;
            item.names = imported_names(tokens, statement, item_end);
        } else {
            std::size_t name_at = statement;
            if (is_name(tokens[name_at], "async")) ++name_at;
            if ((is_name(tokens[name_at], "def") || is_name(tokens[name_at], "class")) && name_at + 1 < item_end) {
                item.kind = TopLevelItem::Kind::definition;
                item.names.emplace_back(tokens[name_at + 1].text);
            } else if (keyword.kind == PyTokenKind::name && statement + 2 < item_end) {
                // `name = ...` or `name: type = ...`; `else:` and `try:` have no '=' and stay "other".
                const bool plain = is_op(tokens[statement + 1], "=") && !is_op(tokens[statement + 2], "=");
                bool annotated = false;
                if (is_op(tokens[statement + 1], ":"))
                    for (std::size_t k = statement + 2; k < item_end && tokens[k].kind != PyTokenKind::newline; ++k)
                        annotated = annotated || is_op(tokens[k], "=");
                if (plain || annotated) {
                    item.kind = TopLevelItem::Kind::assignment;
                    item.names.emplace_back(keyword.text);
                }
            }
        }
        if (with_references) add_references(tokens, item_begin, item_end, item.references);
        if (with_references)
            for (const auto& field_token : tokenized.fstring_field_tokens)
                if (field_token.kind == PyTokenKind::name && field_token.line >= item.first_line &&
                    field_token.line <= item.last_line)
                    item.references.insert(std::string(field_token.text));
        item.token_begin = item_begin;
        item.token_end = item_end;
        items.push_back(std::move(item));
    }
    return items;
}

std::vector<TopLevelItem> top_level_items(std::string_view code) {
    return top_level_items(code, detail::tokenize_python(code));
}

// Names the code provides itself: module-level bindings and every function or class it defines.
std::set<std::string> defined_names(std::string_view code, const std::vector<TopLevelItem>& items) {
    std::set<std::string> names;
    for (const auto& item : items) names.insert(item.names.begin(), item.names.end());
    const auto tokens = detail::tokenize_python(code).tokens;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
        if ((is_name(tokens[i], "def") || is_name(tokens[i], "class")) && tokens[i + 1].kind == PyTokenKind::name)
            names.emplace(tokens[i + 1].text);
    return names;
}

// Names the code binds anywhere (assignment targets, loop and `as` targets, parameters): a function's local
// `largest = ...` must not pull in another block's `def largest`.
std::set<std::string> bound_names(std::string_view code) {
    const auto tokens = detail::tokenize_python(code).tokens;
    std::set<std::string> names;
    std::size_t parameter_depth = 0;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const PyToken& token = tokens[i];
        if (i >= 2 && is_op(token, "(") && is_name(tokens[i - 2], "def")) {
            parameter_depth = 1;
            continue;
        }
        if (parameter_depth > 0) {
            if (is_op(token, "(") || is_op(token, "[")) ++parameter_depth;
            else if (is_op(token, ")") || is_op(token, "]")) --parameter_depth;
            else if (parameter_depth == 1 && token.kind == PyTokenKind::name && i > 0 &&
                     (is_op(tokens[i - 1], "(") || is_op(tokens[i - 1], ",") || is_op(tokens[i - 1], "*")))
                names.emplace(token.text);
            continue;
        }
        if (token.kind != PyTokenKind::name || (i > 0 && is_op(tokens[i - 1], "."))) continue;
        const bool assigned = i + 1 < tokens.size() && is_op(tokens[i + 1], "=") &&
                              !(i + 2 < tokens.size() && is_op(tokens[i + 2], "="));
        const bool after_binder = i > 0 && (is_name(tokens[i - 1], "for") || is_name(tokens[i - 1], "as"));
        if (assigned || after_binder) names.emplace(token.text);
    }
    return names;
}

std::set<std::string> referenced_names(std::string_view code) {
    const auto tokenized = detail::tokenize_python(code);
    std::set<std::string> names;
    add_references(tokenized.tokens, 0, tokenized.tokens.size(), names);
    add_references(tokenized.fstring_field_tokens, 0, tokenized.fstring_field_tokens.size(), names);
    return names;
}

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
// not define itself (transitively: a helper's own helpers come too). A model often splits its answer into
// "imports", "helper" and "solution" blocks; running the solution block alone would fail with a NameError.
AssembledCode assemble_with_helpers(std::string_view chosen, const std::vector<CodeSource>& others,
                                    std::string_view source_word) {
    AssembledCode result;
    result.code = std::string(chosen);
    if (others.empty()) return result;
    std::vector<std::vector<TopLevelItem>> other_items;
    std::set<std::string> others_provide;
    for (const auto& other : others) {
        other_items.push_back(top_level_items(other.code));
        for (const auto& item : other_items.back()) others_provide.insert(item.names.begin(), item.names.end());
    }
    // The common case, a usage or test block that supplies nothing the chosen code uses, ends here.
    if (others_provide.empty()) return result;
    const auto chosen_references = referenced_names(chosen);
    if (std::none_of(others_provide.begin(), others_provide.end(),
                     [&](const std::string& name) { return chosen_references.contains(name); }))
        return result;
    const auto chosen_items = top_level_items(chosen);
    std::set<std::string> provided = defined_names(chosen, chosen_items);
    provided.merge(bound_names(chosen));
    std::set<std::string> needed;
    for (const auto& name : chosen_references)
        if (!provided.contains(name)) needed.insert(name);

    std::set<std::string> chosen_import_texts;
    for (const auto& item : chosen_items)
        if (item.kind == TopLevelItem::Kind::import) chosen_import_texts.insert(std::string(trim(item.text)));

    std::vector<std::vector<bool>> taken;
    for (const auto& items : other_items) taken.emplace_back(items.size(), false);

    bool changed = true;
    while (changed) {
        changed = false;
        for (std::size_t s = 0; s < other_items.size(); ++s) {
            for (std::size_t k = 0; k < other_items[s].size(); ++k) {
                const auto& item = other_items[s][k];
                if (taken[s][k] || item.kind == TopLevelItem::Kind::other ||
                    item.kind == TopLevelItem::Kind::future_import)
                    continue;
                const bool supplies_needed = std::any_of(item.names.begin(), item.names.end(), [&](const auto& n) {
                    return needed.contains(n) && !provided.contains(n);
                });
                if (!supplies_needed) continue;
                if (item.kind == TopLevelItem::Kind::import && chosen_import_texts.contains(std::string(trim(item.text))))
                    continue;
                taken[s][k] = true;
                changed = true;
                provided.insert(item.names.begin(), item.names.end());
                for (const auto& name : item.references)
                    if (!provided.contains(name)) needed.insert(name);
            }
        }
    }

    std::string imports;
    std::string helpers;
    for (std::size_t s = 0; s < other_items.size(); ++s) {
        std::string taken_here;
        for (std::size_t k = 0; k < other_items[s].size(); ++k) {
            if (!taken[s][k]) continue;
            const auto& item = other_items[s][k];
            const bool is_import = item.kind == TopLevelItem::Kind::import;
            (is_import ? imports : helpers) += item.text;
            if (!is_import) helpers += "\n\n";
            if (!taken_here.empty()) taken_here += ", ";
            taken_here += is_import ? std::string(trim(split_lines(item.text).front())) : item.names.front();
        }
        if (taken_here.empty()) continue;
        result.sources_used.push_back(others[s].index);
        result.note += (result.note.empty() ? "; plus from " : "; from ") + std::string(source_word) + " " +
                       std::to_string(others[s].index + 1) + ": " + taken_here;
    }
    if (result.sources_used.empty()) return result;

    // `from __future__` must stay the first statement, so the chosen code's own ones move to the top.
    std::string future_imports;
    std::string body;
    const auto chosen_lines = split_lines(chosen);
    std::vector<bool> is_future_line(chosen_lines.size(), false);
    for (const auto& item : chosen_items)
        if (item.kind == TopLevelItem::Kind::future_import) {
            future_imports += item.text;
            for (std::size_t line = item.first_line; line <= item.last_line; ++line) is_future_line[line - 1] = true;
        }
    for (std::size_t i = 0; i < chosen_lines.size(); ++i)
        if (!is_future_line[i] && !(body.empty() && is_blank(chosen_lines[i]))) body.append(chosen_lines[i]).append("\n");

    result.code = future_imports + imports + (imports.empty() ? "" : "\n") + helpers + body;
    return result;
}

// True for a top-level statement that only demonstrates or tests the function: a print, an assert, a call
// of the function, `result = f(...)`, a test function or class, unittest.main(). Definitions, imports and
// other assignments stay: the function may need them.
bool is_example_item(const TopLevelItem& item, const std::vector<PyToken>& tokens, std::string_view function_name) {
    if (item.token_begin >= item.token_end) return false;
    std::size_t first = item.token_begin;
    while (first < item.token_end && is_op(tokens[first], "@")) {
        while (first < item.token_end && tokens[first].kind != PyTokenKind::newline) ++first;
        ++first;
    }
    if (first >= item.token_end) return false;
    const PyToken& keyword = tokens[first];
    bool mentions_function = false;
    for (std::size_t i = item.token_begin; i < item.token_end && !mentions_function; ++i)
        mentions_function = is_name(tokens[i], function_name) && !(i > 0 && is_op(tokens[i - 1], "."));
    switch (item.kind) {
        case TopLevelItem::Kind::import:
        case TopLevelItem::Kind::future_import: return false;
        case TopLevelItem::Kind::definition: {
            const std::string& name = item.names.front();
            if (name == function_name) return false;
            if (is_name(keyword, "class")) return name.starts_with("Test");
            return name.starts_with("test_") || name == "test" || name == "main";
        }
        case TopLevelItem::Kind::assignment: return mentions_function;
        case TopLevelItem::Kind::other: break;
    }
    if (is_name(keyword, "print") || is_name(keyword, "assert") || is_name(keyword, "pprint")) return true;
    if (is_name(keyword, "unittest") || is_name(keyword, "pytest") || is_name(keyword, "doctest")) return true;
    if (is_name(keyword, "main") && first + 1 < tokens.size() && is_op(tokens[first + 1], "(")) return true;
    return mentions_function;
}

bool is_main_guard(const TopLevelItem& item, const std::vector<PyToken>& tokens) {
    const std::size_t at = item.token_begin;
    return item.token_end >= at + 5 && is_name(tokens[at], "if") && is_name(tokens[at + 1], "__name__") &&
           is_op(tokens[at + 2], "=") && is_op(tokens[at + 3], "=") && tokens[at + 4].kind == PyTokenKind::string &&
           detail::string_literal_body(tokens[at + 4].text) == "__main__";
}

// The code without the `__main__` section and the example statements (unless asked to keep them); a comment
// directly above a dropped statement ("# Example usage:") goes with it. `note` says what was dropped.
std::string drop_examples(const std::string& code, const ExtractOptions& options, std::string& note) {
    if (!options.function_name || (options.keep_main && options.keep_examples)) return code;
    const auto tokenized = detail::tokenize_python(code);
    const auto& tokens = tokenized.tokens;
    // Only code that defines the function is trimmed; anything else is returned as found.
    bool defines = false;
    for (std::size_t i = 0; i + 2 < tokens.size() && !defines; ++i)
        defines = is_name(tokens[i], "def") && is_name(tokens[i + 1], *options.function_name) && is_op(tokens[i + 2], "(");
    if (!defines) return code;
    const auto items = top_level_items(code, tokenized, false);
    const auto lines = split_lines(code);
    std::vector<bool> dropped(lines.size(), false);
    std::size_t main_sections = 0;
    std::size_t examples = 0;
    for (const auto& item : items) {
        const bool main_guard = is_main_guard(item, tokens);
        const bool drop = main_guard ? !options.keep_main
                                     : !options.keep_examples && is_example_item(item, tokens, *options.function_name);
        if (!drop) continue;
        (main_guard ? main_sections : examples) += 1;
        for (std::size_t line = item.first_line; line <= item.last_line && line <= lines.size(); ++line)
            dropped[line - 1] = true;
        for (std::size_t line = std::min(item.first_line - 1, lines.size()); line > 0 && trim(lines[line - 1]).starts_with("#") &&
                                                     leading_whitespace(lines[line - 1]) == 0;
             --line)
            dropped[line - 1] = true;
    }
    if (main_sections == 0 && examples == 0) return code;
    std::string result;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (dropped[i]) continue;
        // No run of more than two blank lines where statements were taken out.
        if (is_blank(lines[i]) && result.ends_with("\n\n\n")) continue;
        result.append(lines[i]).append("\n");
    }
    if (main_sections > 0) note += "; dropped the if __name__ == \"__main__\": section";
    if (examples > 0) note += "; dropped " + std::to_string(examples) + " example or test statement" + (examples == 1 ? "" : "s");
    std::string trimmed(trim(result));
    return trimmed.empty() ? code : trimmed + "\n";
}

// ---------------------------------------------------------------------------------------------------------
// Code without fences

// A line that can only be Python code starting a statement at its indentation: a decorator, a def, a class,
// an import. These are also the lines that may continue a run of code after a definition's body.
bool is_python_code_starter(std::string_view line) {
    const std::string_view trimmed = trim(line);
    {
        Cursor decorator(trimmed);
        if (decorator.literal("@") && decorator.dotted_name()) {
            decorator.spaces();
            if (decorator.at_end() || decorator.peek() == '(' || decorator.peek() == '#') return true;
        }
    }
    {
        Cursor definition(trimmed);
        if (definition.word("async")) definition.spaces();
        if (definition.word("def") && definition.spaces() && definition.identifier()) {
            definition.spaces();
            if (definition.literal("(")) return true;
        }
    }
    {
        Cursor class_definition(trimmed);
        if (class_definition.word("class") && class_definition.spaces() && class_definition.identifier()) {
            class_definition.spaces();
            if (class_definition.peek() == '(' || class_definition.peek() == ':') return true;
        }
    }
    {
        Cursor plain_import(trimmed);
        if (plain_import.word("import") && plain_import.spaces()) {
            bool valid = plain_import.dotted_name() && plain_import.alias();
            while (valid) {
                const std::size_t before = plain_import.position();
                plain_import.spaces();
                if (!plain_import.literal(",")) {
                    Cursor back(trimmed, before);
                    plain_import = back;
                    break;
                }
                plain_import.spaces();
                valid = plain_import.dotted_name() && plain_import.alias();
            }
            if (valid && plain_import.rest_is_blank_or_comment()) return true;
        }
    }
    Cursor from_import(trimmed);
    if (!(from_import.word("from") && from_import.spaces())) return false;
    bool relative = false;
    while (from_import.literal(".")) relative = true;
    if (!from_import.dotted_name() && !relative) return false;
    if (!(from_import.spaces() && from_import.word("import"))) return false;
    from_import.spaces();
    if (from_import.literal("*") || from_import.literal("(")) return true;
    while (true) {
        if (!(from_import.identifier() && from_import.alias())) return false;
        from_import.spaces();
        if (!from_import.literal(",")) break;
        from_import.spaces();
        if (from_import.rest_is_blank_or_comment()) break;
    }
    return from_import.rest_is_blank_or_comment();
}

// A line at indentation 0 that reads as a Python statement rather than as prose.
bool is_python_statement_line(std::string_view line) {
    const std::string_view trimmed = trim(line);
    if (trimmed.empty()) return false;
    if (is_python_code_starter(trimmed)) return true;
    const char first = trimmed.front();
    if (first == '#' || first == ')' || first == ']' || first == '}') return true;
    if (trimmed == "pass") return true;

    static constexpr std::array<std::string_view, 12> kCompoundKeywords{
        "if", "elif", "else", "for", "while", "with", "try", "except", "finally", "match", "case", "async"};
    for (const auto keyword : kCompoundKeywords) {
        Cursor cursor(trimmed);
        if (cursor.word(keyword)) return trimmed.back() == ':';
    }
    static constexpr std::array<std::string_view, 5> kSimpleKeywords{"assert", "raise", "del", "global", "nonlocal"};
    for (const auto keyword : kSimpleKeywords) {
        Cursor cursor(trimmed);
        if (cursor.word(keyword) && cursor.spaces()) return true;
    }

    Cursor target(trimmed);
    if (!target.dotted_name()) return false;
    // A call statement: `name(` with no space (prose writes "word (") and a line that ends like code.
    if (target.peek() == '(') return std::string_view(")(,[{").find(trimmed.back()) != std::string_view::npos;
    // An assignment: `a = ...`, `a.b[i] += ...`, `a, b = ...`, `a: int = ...`.
    if (target.peek() == '[') {
        const std::size_t close = trimmed.find(']', target.position());
        if (close == std::string_view::npos) return false;
        target = Cursor(trimmed, close + 1);
    }
    while (true) {
        const std::size_t before = target.position();
        target.spaces();
        if (!target.literal(",")) {
            target = Cursor(trimmed, before);
            break;
        }
        target.spaces();
        if (!target.dotted_name()) return false;
    }
    target.spaces();
    const std::string_view rest = trimmed.substr(target.position());
    if (rest.starts_with(":")) {
        const std::size_t equals = rest.find('=');
        return equals != std::string_view::npos && (equals + 1 >= rest.size() || rest[equals + 1] != '=');
    }
    const std::size_t operator_length = std::min(rest.find_first_not_of("+-*/%&|^@<>"), rest.size());
    if (operator_length > 3 || operator_length >= rest.size() || rest[operator_length] != '=') return false;
    return operator_length + 1 < rest.size() && rest[operator_length + 1] != '=';
}

// True when the output is a Python program with no prose at all (a model that answers with bare code).
bool looks_like_python_program(std::string_view text, const std::vector<std::string_view>& lines) {
    const auto tokenized = detail::tokenize_python(text);
    // Prose apostrophes open strings that never close; prose rarely balances brackets either.
    if (tokenized.unterminated_string || tokenized.unbalanced_brackets) return false;
    bool any_code = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (is_blank(lines[i])) continue;
        if (i < tokenized.line_continues.size() && tokenized.line_continues[i]) continue;
        if (leading_whitespace(lines[i]) > 0) {
            if (!any_code) return false;  // a program does not start indented
            continue;
        }
        if (!is_python_statement_line(lines[i])) return false;
        if (!trim(lines[i]).starts_with("#")) any_code = true;
    }
    return any_code;
}

struct CodeRun {
    std::size_t first_line = 0;  // 1-based, in the normalised output
    std::size_t last_line = 0;
    std::string code;  // dedented by the run's indentation
    bool has_definition = false;
};

// Runs of Python code in prose: from a starter line on, through blank lines, deeper-indented lines, lines
// continuing an open bracket or string, and further starters at the same indentation (a decorator, the
// next def or class, an import). The first other non-blank line at or left of that indentation is prose.
std::vector<CodeRun> find_code_runs(std::string_view text, const std::vector<std::string_view>& lines) {
    std::vector<CodeRun> runs;
    std::size_t i = 0;
    while (i < lines.size()) {
        if (!is_python_code_starter(lines[i])) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        const std::size_t base = leading_whitespace(lines[start]);
        // Tokenizing from the run's start is enough: a line's continuation state depends only on what precedes it.
        const auto offset = static_cast<std::size_t>(lines[start].data() - text.data());
        const auto continues = detail::tokenize_python(text.substr(offset)).line_continues;
        const auto continues_line = [&](std::size_t index) {
            return index - start < continues.size() && continues[index - start];
        };
        const auto continues_run = [&](std::size_t index) {
            const std::size_t indentation = leading_whitespace(lines[index]);
            if (continues_line(index) || indentation > base) return true;
            return indentation == base && is_python_code_starter(lines[index]);
        };
        std::size_t last_code = start;
        std::size_t j = start + 1;
        while (j < lines.size()) {
            if (is_blank(lines[j]) || continues_run(j)) {
                if (!is_blank(lines[j])) last_code = j;
                ++j;
                continue;
            }
            // A comment at the run's indentation belongs to the code when more code follows it.
            if (leading_whitespace(lines[j]) == base && trim(lines[j]).starts_with("#")) {
                std::size_t next = j + 1;
                while (next < lines.size() && (is_blank(lines[next]) || trim(lines[next]).starts_with("#"))) ++next;
                if (next < lines.size() && leading_whitespace(lines[next]) == base &&
                    is_python_code_starter(lines[next])) {
                    j = next;
                    continue;
                }
            }
            break;
        }
        CodeRun run;
        run.first_line = start + 1;
        run.last_line = last_code + 1;
        run.code = join_lines(lines, start, last_code, base);
        const auto tokens = detail::tokenize_python(run.code).tokens;
        run.has_definition = std::any_of(tokens.begin(), tokens.end(), [](const PyToken& token) {
            return is_name(token, "def") || is_name(token, "class");
        });
        runs.push_back(std::move(run));
        i = last_code + 1;
    }
    return runs;
}

std::string line_range(std::size_t first, std::size_t last) {
    return first == last ? "line " + std::to_string(first)
                         : "lines " + std::to_string(first) + "-" + std::to_string(last);
}

std::string with_final_newline(std::string_view code) {
    std::string result(trim(code));
    if (!result.empty()) result += '\n';
    return result;
}

}  // namespace

CodeExtractor::CodeExtractor(ExtractOptions options) : options_(std::move(options)) {}

std::vector<CodeBlock> CodeExtractor::fenced_blocks(std::string_view output) {
    const std::string normalised = normalise_newlines(output);
    std::vector<CodeBlock> blocks;
    for (auto& found : find_fenced_blocks(split_lines(normalised))) blocks.push_back(std::move(found.block));
    return blocks;
}

// When a function_name is given but no code defines it, the best code found is still returned (the method
// and explanation say so): the Runner then reports the tutorial's "No Python function named X found", which
// is more useful to the user than "no code found" when code is plainly there.
std::optional<Extraction> CodeExtractor::try_extract(std::string_view output) const {
    auto extraction = find_code(output);
    if (!extraction || extraction->language != Language::python || !options_.function_name) return extraction;
    extraction->code = drop_examples(extraction->code, options_, extraction->explanation);
    return extraction;
}

std::optional<Extraction> CodeExtractor::find_code(std::string_view output) const {
    const std::string normalised = normalise_newlines(output);
    if (is_blank(normalised)) return std::nullopt;
    const auto lines = split_lines(normalised);
    const auto blocks = find_fenced_blocks(lines);
    const Language wanted = options_.language;
    const auto& function_name = options_.function_name;

    const auto has_code = [&](std::size_t i) { return !is_blank(blocks[i].block.code); };
    // A TypeScript block answers a JavaScript task too, run as JavaScript (types are the usual difference).
    const auto compatible = [&](std::size_t i) {
        return blocks[i].block.language == wanted || blocks[i].block.tag.empty() ||
               (wanted == Language::javascript && blocks[i].block.language == Language::typescript);
    };
    const auto unknown_tag = [&](std::size_t i) {
        return !blocks[i].block.tag.empty() && !blocks[i].block.language.has_value();
    };
    const auto defines_wanted = [&](std::size_t i) {
        return function_name && defines_function(blocks[i].block.code, wanted, *function_name);
    };
    const auto first_block = [&](auto&& predicate) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < blocks.size(); ++i)
            if (has_code(i) && predicate(i)) return i;
        return std::nullopt;
    };

    const auto from_block = [&](std::size_t chosen, const std::string& suffix) {
        const FoundBlock& found = blocks[chosen];
        Extraction extraction;
        extraction.code = found.block.code;
        extraction.language = found.block.language.value_or(wanted);
        if (wanted == Language::javascript && extraction.language == Language::typescript) extraction.language = wanted;
        extraction.method = ExtractionMethod::fenced_block;
        extraction.blocks_used = {chosen};
        extraction.explanation = "fenced block " + std::to_string(chosen + 1) + " of " +
                                 std::to_string(blocks.size()) + " (" + found.fence_text + " at line " +
                                 std::to_string(found.block.first_line) +
                                 (found.block.terminated ? "" : ", never closed") +
                                 (found.repl_session ? ", a >>> session: prompts and output stripped" : "") + ")" + suffix;
        return extraction;
    };

    // 1. The block that defines the function, with what it needs from the other blocks.
    if (function_name) {
        auto chosen = first_block([&](std::size_t i) { return compatible(i) && defines_wanted(i); });
        if (!chosen) chosen = first_block([&](std::size_t i) { return unknown_tag(i) && defines_wanted(i); });
        if (chosen) {
            Extraction extraction = from_block(*chosen, "; defines " + *function_name);
            if (wanted == Language::python) {
                std::vector<CodeSource> others;
                for (std::size_t i = 0; i < blocks.size(); ++i)
                    if (i != *chosen && has_code(i) && compatible(i)) others.push_back({i, blocks[i].block.code});
                auto assembled = assemble_with_helpers(extraction.code, others, "block");
                extraction.code = std::move(assembled.code);
                extraction.blocks_used.insert(extraction.blocks_used.end(), assembled.sources_used.begin(),
                                              assembled.sources_used.end());
                extraction.explanation += assembled.note;
            }
            return extraction;
        }
    }
    const std::string not_defined = function_name ? "; no block defines " + *function_name : "";

    // 2. The first block in the wanted language or without a tag, as the tutorial does.
    if (const auto chosen = first_block(compatible)) return from_block(*chosen, not_defined);

    // 3. No usable fence: bare code, or definitions written into the prose.
    if (wanted != Language::python) {
        if (blocks.empty()) {
            Extraction extraction;
            extraction.code = with_final_newline(normalised);
            extraction.language = wanted;
            extraction.method = ExtractionMethod::whole_output;
            extraction.explanation = "no fenced block; used the whole output as " + std::string(to_string(wanted));
            return extraction;
        }
    } else if (blocks.empty() && looks_like_python_program(normalised, lines)) {
        Extraction extraction;
        extraction.code = with_final_newline(normalised);
        extraction.method = ExtractionMethod::whole_output;
        extraction.explanation = "no fenced block; the whole output is Python code";
        if (function_name && !python_definition_line(extraction.code, *function_name))
            extraction.explanation += "; it does not define " + *function_name;
        return extraction;
    } else {
        const auto runs = find_code_runs(normalised, lines);
        if (function_name) {
            for (std::size_t r = 0; r < runs.size(); ++r) {
                const auto definition_line = python_definition_line(runs[r].code, *function_name);
                if (!definition_line) continue;
                Extraction extraction;
                extraction.method = ExtractionMethod::function_definition;
                std::vector<CodeSource> others;
                for (std::size_t o = 0; o < runs.size(); ++o)
                    if (o != r) others.push_back({o, runs[o].code});
                auto assembled = assemble_with_helpers(runs[r].code, others, "run");
                extraction.code = std::move(assembled.code);
                extraction.explanation = "unfenced code at " + line_range(runs[r].first_line, runs[r].last_line) +
                                         " (def " + *function_name + " at line " +
                                         std::to_string(runs[r].first_line + *definition_line - 1) + ")";
                // Name helper runs by their lines, which mean more to a reader than run numbers.
                for (std::size_t used : assembled.sources_used)
                    extraction.explanation += "; plus " + line_range(runs[used].first_line, runs[used].last_line);
                return extraction;
            }
        }
        const auto first_definition =
            std::find_if(runs.begin(), runs.end(), [](const CodeRun& run) { return run.has_definition; });
        if (first_definition != runs.end()) {
            // Like the tutorial's "any def to the end", but without the prose in between.
            Extraction extraction;
            extraction.method = ExtractionMethod::any_definition;
            std::string ranges;
            for (const auto& run : runs) {
                if (!extraction.code.empty()) extraction.code += '\n';
                extraction.code += run.code;
                ranges += (ranges.empty() ? "" : ", ") + line_range(run.first_line, run.last_line);
            }
            extraction.explanation = "unfenced code at " + ranges;
            if (function_name) extraction.explanation += "; none of it defines " + *function_name;
            return extraction;
        }
    }

    // 4. Only blocks in another language or with an unknown tag: better than nothing, and the explanation says so.
    if (const auto chosen = first_block(unknown_tag))
        return from_block(*chosen, "; the tag is not " + std::string(to_string(wanted)) + not_defined);
    if (const auto chosen = first_block([](std::size_t) { return true; }))
        return from_block(*chosen, "; the tag is not " + std::string(to_string(wanted)) + not_defined);
    return std::nullopt;
}

Extraction CodeExtractor::extract(std::string_view output) const {
    require_clean_text(output, "model output");
    if (is_blank(output))
        throw extraction_error(
            "the model output is empty; there is no code to run (check the provider's response and the prompt)");
    if (auto extraction = try_extract(output)) return std::move(*extraction);

    const std::string fence = "```" + std::string(to_string(options_.language));
    std::string expected = "a " + fence + " fenced block";
    if (options_.language == Language::python)
        expected += options_.function_name ? " or a \"def " + *options_.function_name + "(\" definition"
                                           : " or a Python \"def\"";
    throw extraction_error("no code found in the model output (expected " + expected + "); output starts: \"" +
                           preview(output, 60) + "\"");
}

bool code_defines_function(std::string_view code, Language language, std::string_view name) {
    return defines_function(code, language, name);
}

std::vector<std::string> defined_function_names(std::string_view code, Language language) {
    std::vector<std::string> names;
    const auto add = [&](std::string_view name) {
        if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
    };
    if (language == Language::python) {
        const auto tokens = detail::tokenize_python(code).tokens;
        for (std::size_t i = 0; i + 2 < tokens.size(); ++i)
            if (is_name(tokens[i], "def") && tokens[i + 1].kind == PyTokenKind::name && is_op(tokens[i + 2], "("))
                add(tokens[i + 1].text);
        return names;
    }
    for (const auto line : split_lines(code)) {
        for (std::size_t pos = 0; pos < line.size(); ++pos) {
            if (!is_word_boundary_before(line, pos)) continue;
            Cursor cursor(line, pos);
            std::size_t start = 0;
            if (cursor.word("function")) {
                cursor.spaces();
                cursor.literal("*");
                cursor.spaces();
                start = cursor.position();
                if (cursor.identifier()) add(line.substr(start, cursor.position() - start));
            } else if (language == Language::javascript && (cursor.word("const") || cursor.word("let") || cursor.word("var"))) {
                if (!cursor.spaces()) continue;
                start = cursor.position();
                if (!cursor.identifier()) continue;
                const auto name = line.substr(start, cursor.position() - start);
                cursor.spaces();
                if (!cursor.literal("=") || cursor.peek() == '=') continue;
                cursor.spaces();
                if (cursor.word("function") || cursor.word("async") || cursor.peek() == '(') add(name);
            } else if (language == Language::bash && pos == leading_whitespace(line) && cursor.identifier()) {
                const auto name = line.substr(pos, cursor.position() - pos);
                cursor.spaces();
                if (cursor.literal("(") && (cursor.spaces(), cursor.literal(")"))) add(name);
            }
        }
    }
    return names;
}

}  // namespace e2beval

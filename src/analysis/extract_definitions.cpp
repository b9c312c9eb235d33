// Which code defines a function, per language: Python on tokens, JavaScript and bash with a small cursor over
// the text, the C family with a regular expression over a definition's shape. Also code_defines_function and
// defined_function_names (e2beval/analysis/extract.hpp).
#include "analysis/extract_parts.hpp"

#include <regex>

namespace e2beval::detail::extraction {

// The line of `def name(` (also `async def name(`), if the code defines that function.
std::optional<std::size_t> python_definition_line(std::string_view code, std::string_view name) {
    if (code.find(name) == std::string_view::npos) return std::nullopt;  // most blocks: no tokenizing needed
    const auto tokens = detail::tokenize_python(code).tokens;
    for (std::size_t i = 0; i + 2 < tokens.size(); ++i)
        if (is_name(tokens[i], "def") && is_name(tokens[i + 1], name) && is_op(tokens[i + 2], "("))
            return tokens[i].line;
    return std::nullopt;
}

namespace {

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

}  // namespace

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

}  // namespace e2beval::detail::extraction

namespace e2beval {

bool code_defines_function(std::string_view code, Language language, std::string_view name) {
    using namespace detail::extraction;
    return defines_function(code, language, name);
}

std::vector<std::string> defined_function_names(std::string_view code, Language language) {
    using namespace detail::extraction;
    std::vector<std::string> names;
    const auto add = [&](std::string_view name) {
        if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
    };
    if (language == Language::python) {
        const auto tokens = detail::tokenize_python(code).tokens;
        for (std::size_t i = 0; i + 2 < tokens.size(); ++i)
            if (is_name(tokens[i], "def") && tokens[i + 1].kind == detail::PyTokenKind::name && is_op(tokens[i + 2], "("))
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

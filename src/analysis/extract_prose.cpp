// Python code written into prose without a fence: a whole answer that is a program, or runs of code from a
// line only code can start (a def, a class, an import, a decorator) through what continues it.
#include "analysis/extract_parts.hpp"

#include <algorithm>
#include <array>

namespace e2beval::detail::extraction {

namespace {

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

}  // namespace

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

}  // namespace e2beval::detail::extraction

// JavaScript and TypeScript: the answer without its own `assert` import, without `export` (the program is a
// script), and without its top-level example statements (`console.log(...)`, `assert...(...)`, `module.exports`),
// then the tests. Other top-level code stays: an answer may build a table its function reads.
#include <algorithm>
#include <cctype>

#include "languages.hpp"
#include "source_scan.hpp"

namespace e2beval::assembly {

namespace javascript_rules {

std::string_view without_indentation(std::string_view line) {
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    return line;
}

bool word_at(std::string_view text, std::string_view word) {
    if (!text.starts_with(word)) return false;
    if (text.size() == word.size()) return true;
    const char next = text[word.size()];
    return !(std::isalnum(static_cast<unsigned char>(next)) || next == '_' || next == '$');
}

// `rest` after optional spaces starts with `(` (a call) or `.` (a member: console.log, assert.strictEqual).
bool call_or_member(std::string_view rest) {
    rest = without_indentation(rest);
    return !rest.empty() && (rest[0] == '(' || rest[0] == '.');
}

// The answer's own harness at the start of a top-level statement: what is dropped.
bool is_example_statement(std::string_view masked_line) {
    const auto line = without_indentation(masked_line);
    if (word_at(line, "console") && call_or_member(line.substr(7))) return true;
    if (line.starts_with("assert") && (word_at(line, "assert") ? call_or_member(line.substr(6)) : line.find('(') != std::string_view::npos)) {
        const std::size_t end = line.find_first_of("(.");
        return end != std::string_view::npos && line.substr(0, end).find_first_of(" =") == std::string_view::npos;
    }
    return line.starts_with("module.exports") || line.starts_with("exports.");
}

// `const assert = require('assert')`, `import assert from 'assert'`, `import * as assert from ...`.
bool is_assert_import(std::string_view masked_line) {
    const auto line = without_indentation(masked_line);
    for (const std::string_view keyword : {"const ", "let ", "var "})
        if (line.starts_with(keyword)) {
            const auto rest = without_indentation(line.substr(keyword.size()));
            return (word_at(rest, "assert") || rest.starts_with("{")) && rest.find("require") != std::string_view::npos &&
                   rest.find("assert") != std::string_view::npos;
        }
    if (word_at(line, "import")) return line.find("assert") != std::string_view::npos;
    return false;
}

// How many bytes of `export ` / `export default ` to drop at the start of the line; 0 when none.
std::size_t export_prefix(std::string_view line) {
    const std::size_t indentation = line.size() - without_indentation(line).size();
    auto rest = line.substr(indentation);
    if (!word_at(rest, "export")) return 0;
    std::size_t length = 6;
    auto after = rest.substr(length);
    const std::size_t spaces = after.size() - without_indentation(after).size();
    length += spaces;
    after = rest.substr(length);
    if (word_at(after, "default")) {
        length += 7;
        after = rest.substr(length);
        const std::size_t more = after.size() - without_indentation(after).size();
        length += more;
        after = rest.substr(length);
    }
    for (const std::string_view keyword : {"function", "async", "class", "const", "let", "var", "interface", "type", "enum", "abstract"})
        if (word_at(after, keyword)) return indentation + length;
    return 0;
}

// `export { a, b };` and `export default name;`: a line that only exports.
bool is_export_only(std::string_view masked_line) {
    const auto line = without_indentation(masked_line);
    if (!word_at(line, "export")) return false;
    return export_prefix(masked_line) == 0;
}

int bracket_balance(std::string_view masked_line) {
    int balance = 0;
    for (const char c : masked_line) {
        if (c == '(' || c == '[' || c == '{') ++balance;
        else if (c == ')' || c == ']' || c == '}') --balance;
    }
    return balance;
}

}  // namespace javascript_rules

FreeformProgram assemble_javascript(const MultiplETask& task, std::string_view, std::string_view code) {
    using namespace javascript_rules;
    FreeformProgram program;
    const bool typescript = task.language == Language::typescript;
    program.file_name = typescript ? "prog.ts" : "prog.js";
    const std::string masked = mask_source(code, task.language);
    std::string body;
    int depth = 0;        // bracket depth before the line
    bool skipping = false;  // inside a dropped statement that spans lines
    for (std::size_t start = 0; start < code.size();) {
        const std::size_t end = line_end(code, start);
        const std::string_view line = std::string_view(code).substr(start, end - start);
        const std::string_view masked_line = std::string_view(masked).substr(start, end - start);
        const int before = depth;
        depth += bracket_balance(masked_line);
        start = end + 1;
        if (skipping) {
            if (depth <= 0) skipping = false;
            continue;
        }
        if (before == 0 && (is_example_statement(masked_line) || is_assert_import(masked_line) || is_export_only(masked_line))) {
            if (depth > 0) skipping = true;
            const auto first = without_indentation(line);
            const std::string shown(first.substr(0, std::min<std::size_t>(first.find_first_of("(=;"), 40)));
            if (std::find(program.removed.begin(), program.removed.end(), shown) == program.removed.end())
                program.removed.push_back(shown);
            continue;
        }
        const std::size_t prefix = before == 0 ? export_prefix(masked_line) : 0;
        body.append(line.substr(prefix));
        body += '\n';
    }
    program.source = body + "\n" + task.tests;
    return program;
}

}  // namespace e2beval::assembly

// Bash: the answer's function definitions, comments, top-level assignments and settings (`set`, `shopt`,
// `declare`, `source`), without its other top-level commands (its examples, `main "$@"`, `exit`, a
// BASH_SOURCE guard), then the tests without their first line (the `}` that closes the prompt's function).
// Bash has no braces to count reliably, so the rules read lines: a function ends at a `}` at its own indentation.
#include <algorithm>
#include <cctype>

#include "languages.hpp"
#include "source_scan.hpp"

namespace e2beval::assembly {

namespace bash_rules {

bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ':' || c == '.';
}

std::string_view trim_left(std::string_view line) {
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    return line;
}

std::string_view trim(std::string_view line) {
    line = trim_left(line);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    return line;
}

// A function's first line: `name() {`, `name ()`, `function name {`, `function name() {`, optionally with the
// whole body on the line. Returns the name, empty when the line is no function's start.
std::string_view function_start(std::string_view line, bool& one_line) {
    auto rest = trim_left(line);
    bool keyword = false;
    if (rest.starts_with("function ") || rest.starts_with("function\t")) {
        keyword = true;
        rest = trim_left(rest.substr(9));
    }
    std::size_t length = 0;
    while (length < rest.size() && is_name_char(rest[length])) ++length;
    if (length == 0) return {};
    const auto name = rest.substr(0, length);
    rest = trim_left(rest.substr(length));
    if (rest.starts_with("(")) {
        rest = trim_left(rest.substr(1));
        if (!rest.starts_with(")")) return {};
        rest = trim_left(rest.substr(1));
    } else if (!keyword) {
        return {};
    }
    // What may follow: nothing, `{`, a comment, or a whole body `{ ...; }`.
    rest = trim(rest);
    one_line = rest.starts_with("{") && rest.size() > 1 && rest.ends_with("}");
    if (rest.empty() || rest == "{" || rest.starts_with("#") || one_line || (rest.starts_with("{") && trim(rest.substr(1)).starts_with("#")))
        return name;
    if (rest.starts_with("(")) return name;  // a subshell body: name() ( ... )
    return {};
}

bool is_kept_statement(std::string_view line) {
    const auto text = trim(line);
    if (text.empty() || text.starts_with("#")) return true;
    for (const std::string_view keyword : {"export ", "readonly ", "declare ", "typeset ", "local ", "set ", "shopt ", "source ", ". "})
        if (text.starts_with(keyword)) return true;
    // NAME=value, NAME+=value, NAME[i]=value
    std::size_t length = 0;
    while (length < text.size() && (std::isalnum(static_cast<unsigned char>(text[length])) || text[length] == '_')) ++length;
    if (length == 0 || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
    auto rest = text.substr(length);
    if (rest.starts_with("[")) {
        const std::size_t close = rest.find(']');
        if (close == std::string_view::npos) return false;
        rest = rest.substr(close + 1);
    }
    return rest.starts_with("=") || rest.starts_with("+=");
}

std::size_t count_words(std::string_view text, std::initializer_list<std::string_view> words) {
    std::size_t count = 0;
    for (const auto word : words)
        for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
            const bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == ';' || text[at - 1] == '\t' || text[at - 1] == '&' || text[at - 1] == '|';
            const std::size_t after = at + word.size();
            const bool ends = after == text.size() || text[after] == ' ' || text[after] == ';' || text[after] == '\t';
            count += starts && ends ? 1 : 0;
        }
    return count;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t end = line_end(text, start);
        lines.push_back(text.substr(start, end - start));
        if (end == text.size()) break;
        start = end + 1;
    }
    return lines;
}

}  // namespace bash_rules

bool bash_defines_function(std::string_view code, std::string_view name) {
    using namespace bash_rules;
    for (const auto line : split_lines(code)) {
        bool one_line = false;
        if (function_start(line, one_line) == name) return true;
    }
    return false;
}

FreeformProgram assemble_bash(const MultiplETask& task, std::string_view, std::string_view code) {
    using namespace bash_rules;
    FreeformProgram program;
    program.file_name = "prog.sh";
    const auto lines = split_lines(code);
    std::string body;
    for (std::size_t i = 0; i < lines.size();) {
        const auto line = lines[i];
        bool one_line = false;
        if (!function_start(line, one_line).empty()) {
            body.append(line).append("\n");
            ++i;
            if (one_line) continue;
            // The body, through a `}` (or `)`) at the definition's own indentation.
            const std::size_t indentation = line.size() - trim_left(line).size();
            while (i < lines.size()) {
                const auto inner = lines[i];
                body.append(inner).append("\n");
                ++i;
                const std::size_t inner_indentation = inner.size() - trim_left(inner).size();
                const auto text = trim(inner);
                if ((text.starts_with("}") || text == ")") && inner_indentation <= indentation &&
                    (text.size() == 1 || text[1] == ' ' || text[1] == '#' || text[1] == ';'))
                    break;
            }
            continue;
        }
        if (is_kept_statement(line)) {
            body.append(line).append("\n");
            ++i;
            continue;
        }
        // A top-level compound command (if/for/while/case, a `{ ... }` group): dropped whole.
        const auto text = trim(line);
        const bool opens = count_words(text, {"if", "for", "while", "until", "case", "select"}) > 0 || text.ends_with("{") ||
                           text.ends_with("(");
        program.removed.push_back(std::string(text.substr(0, std::min<std::size_t>(text.size(), 40))));
        if (!opens) {
            ++i;
            continue;
        }
        long depth = 0;
        while (i < lines.size()) {
            const auto part = trim(lines[i]);
            depth += static_cast<long>(count_words(part, {"if", "for", "while", "until", "case", "select"}));
            depth += static_cast<long>(std::count(part.begin(), part.end(), '{')) - static_cast<long>(std::count(part.begin(), part.end(), '}'));
            depth -= static_cast<long>(count_words(part, {"fi", "done", "esac"}));
            ++i;
            if (depth <= 0) break;
        }
    }
    program.source = body + "\n" + tests_without_closing_line(task.tests);
    return program;
}

}  // namespace e2beval::assembly

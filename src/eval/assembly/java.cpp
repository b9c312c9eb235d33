// Java: the prompt's imports and the answer's, once each and first; no package line; the model's own main()
// removed from its classes; the tests (a main() that closes the class) spliced in place of the closing brace of the
// class that defines the entry method. The file is named after the public class, if any (javac requires it).
#include <algorithm>

#include "languages.hpp"
#include "source_scan.hpp"

namespace e2beval::assembly {

namespace java_rules {

std::string trimmed(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const std::size_t last = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(first, last - first + 1));
}

// The top-level `import ...;` and `package ...;` statements: their text (imports only) and their spans.
void collect_imports(const SourceView& view, std::vector<std::string>& imports, std::vector<Span>* spans) {
    const auto& tokens = view.tokens();
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        if (tokens[k].depth != 0 || !(tokens[k].text == "import" || tokens[k].text == "package")) continue;
        if (k > 0 && tokens[k - 1].text != ";" && tokens[k - 1].text != "}" &&
            line_start(view.code(), tokens[k].offset) > tokens[k - 1].offset)
            continue;  // not at the start of a statement
        const auto semicolon = view.find(k, ";");
        if (!semicolon) break;
        const std::size_t begin = tokens[k].offset;
        std::size_t end = tokens[*semicolon].offset + 1;
        if (tokens[k].text == "import") imports.push_back(trimmed(view.code().substr(begin, end - begin)));
        if (spans) {
            if (end < view.code().size() && view.code()[end] == '\n') ++end;
            spans->push_back({begin, end});
        }
        k = *semicolon;
    }
}

}  // namespace java_rules

FreeformProgram assemble_java(const MultiplETask& task, std::string_view entry, std::string_view code) {
    using namespace java_rules;
    FreeformProgram program;
    std::vector<std::string> imports;
    collect_imports(SourceView(prompt_preamble(task), Language::java), imports, nullptr);

    // The answer's imports join the prompt's; its package line goes (the file is compiled on its own).
    std::vector<Span> spans;
    {
        const SourceView view(code, Language::java);
        collect_imports(view, imports, &spans);
        // The model's own `static void main(` in a top-level class.
        const auto& tokens = view.tokens();
        for (std::size_t k = 1; k + 1 < tokens.size(); ++k) {
            if (tokens[k].depth != 1 || tokens[k].text != "main" || tokens[k - 1].text != "void" || tokens[k + 1].text != "(")
                continue;
            if (!spans.empty() && tokens[k].offset < spans.back().end) continue;
            if (const auto span = definition_span(view, k, k + 1, true)) {
                spans.push_back(*span);
                program.removed.push_back("static void main()");
            }
        }
        std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    }
    const std::string body = remove_spans(code, spans);
    std::vector<std::string> unique;
    for (const auto& line : imports)
        if (std::find(unique.begin(), unique.end(), line) == unique.end()) unique.push_back(line);
    std::string head;
    for (const auto& line : unique) head += line + "\n";

    const std::string tests = tests_without_closing_line(task.tests);
    const SourceView view(body, Language::java);
    const auto& tokens = view.tokens();
    // The top-level class that defines the entry method, and the public one (which names the file).
    std::optional<std::string> entry_class, public_class;
    std::optional<std::size_t> entry_close_offset;
    for (std::size_t k = 0; k + 1 < tokens.size(); ++k) {
        const auto text = tokens[k].text;
        if (tokens[k].depth != 0 || !(text == "class" || text == "interface" || text == "enum" || text == "record")) continue;
        if (!tokens[k + 1].word) continue;
        const std::string name(tokens[k + 1].text);
        for (std::size_t m = line_start(body, tokens[k].offset), j = k; j-- > 0 && tokens[j].offset >= m;)
            if (tokens[j].text == "public" && !public_class) public_class = name;
        const auto open = view.find(k, "{", 0);
        if (!open) break;
        const auto close = view.closing(*open);
        const std::size_t last = close.value_or(tokens.size());
        if (!entry_class)
            for (std::size_t j = *open + 1; j < last; ++j)
                if (tokens[j].depth == 1 && defines_function_at(view, j, entry)) {
                    entry_class = name;
                    entry_close_offset = close ? std::optional(tokens[*close].offset) : std::nullopt;
                    break;
                }
        if (!close) break;
        k = *close;
    }
    if (!entry_class) {
        // Bare methods: inside the prompt's class.
        program.source = head + "class Problem {\n" + body + "\n" + tests;
        program.main_class = "Problem";
        program.file_name = "Problem.java";
        return program;
    }
    if (entry_close_offset)
        program.source = head + body.substr(0, *entry_close_offset) + "\n" + tests + body.substr(*entry_close_offset + 1);
    else
        program.source = head + body + "\n" + tests;  // a truncated answer: the tests close the class
    program.main_class = *entry_class;
    program.file_name = public_class.value_or(*entry_class) + ".java";
    return program;
}

}  // namespace e2beval::assembly

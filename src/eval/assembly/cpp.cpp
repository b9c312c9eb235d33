// C++: the answer without its own main(), after the prompt's #include lines and the declarations the prompt makes
// (the union types of rows 103, 125 and 137) that the answer does not repeat, then the tests without their first
// line (the `}` that closes the prompt's function).
#include <algorithm>

#include "languages.hpp"
#include "source_scan.hpp"

namespace e2beval::assembly {

namespace cpp_rules {

// Every line of `text` that is an #include, as written.
std::vector<std::string> include_lines(std::string_view text) {
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = line_end(text, start);
        std::string_view line = text.substr(start, end - start);
        const std::size_t first = line.find_first_not_of(" \t");
        if (first != std::string_view::npos && line.substr(first).starts_with("#include")) lines.emplace_back(line);
        start = end + 1;
    }
    return lines;
}

// Whether the answer declares a type `name` itself (union, struct, class or enum of that name).
bool declares_type(const SourceView& view, std::string_view name) {
    const auto& tokens = view.tokens();
    for (std::size_t k = 0; k + 1 < tokens.size(); ++k)
        if ((tokens[k].text == "union" || tokens[k].text == "struct" || tokens[k].text == "class" || tokens[k].text == "enum") &&
            tokens[k + 1].text == name)
            return true;
    return false;
}

}  // namespace cpp_rules

FreeformProgram assemble_cpp(const MultiplETask& task, std::string_view, std::string_view code) {
    using namespace cpp_rules;
    FreeformProgram program;
    program.file_name = "prog.cpp";

    // The model's own main() (its examples and asserts): a top-level `main(` definition, found on code only.
    const SourceView view(code, Language::cpp);
    std::vector<Span> spans;
    const auto& tokens = view.tokens();
    for (std::size_t k = 1; k + 1 < tokens.size(); ++k) {
        if (tokens[k].depth != 0 || tokens[k].text != "main" || tokens[k + 1].text != "(" || !tokens[k - 1].word) continue;
        if (!spans.empty() && tokens[k].offset < spans.back().end) continue;
        if (const auto span = definition_span(view, k - 1, k + 1)) {
            spans.push_back(*span);
            program.removed.push_back("int main()");
        }
    }
    const std::string body = remove_spans(code, spans);

    // What the prompt declares before the function, kept unless the answer has its own.
    const std::string_view preamble = prompt_preamble(task);
    std::string head;
    for (const auto& line : include_lines(preamble)) head += line + "\n";
    const SourceView prompt(preamble, Language::cpp);
    const SourceView answer(body, Language::cpp);
    const auto& prompt_tokens = prompt.tokens();
    for (std::size_t k = 0; k + 1 < prompt_tokens.size(); ++k) {
        const auto keyword = prompt_tokens[k].text;
        if (prompt_tokens[k].depth != 0 || !(keyword == "union" || keyword == "struct" || keyword == "class")) continue;
        const auto open = prompt.find(k, "{", 0);
        if (!open) break;
        const auto close = prompt.closing(*open);
        if (!close) break;
        const auto semicolon = prompt.find(*close, ";");
        const std::size_t end = semicolon ? prompt_tokens[*semicolon].offset + 1 : prompt_tokens[*close].offset + 1;
        if (!declares_type(answer, prompt_tokens[k + 1].text))
            head += std::string(preamble.substr(line_start(preamble, prompt_tokens[k].offset),
                                                end - line_start(preamble, prompt_tokens[k].offset))) + "\n";
        k = semicolon.value_or(*close);
    }
    program.source = head + body + "\n" + tests_without_closing_line(task.tests);
    return program;
}

}  // namespace e2beval::assembly

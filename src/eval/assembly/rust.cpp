// Rust: the prompt's `use` lines the answer lacks, the answer without its own `fn main` and its tests (`mod tests`,
// `#[test]` functions, with their attributes), then the tests without their first line (the `}` that closes the
// prompt's function).
#include <algorithm>

#include "languages.hpp"
#include "source_scan.hpp"

namespace e2beval::assembly {

namespace rust_rules {

// The names a `use` declaration of the answer brings in, over all of them: {HashMap, HashSet, ...}.
std::vector<std::string_view> used_names(const SourceView& view) {
    std::vector<std::string_view> names;
    const auto& tokens = view.tokens();
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        if (tokens[k].text != "use") continue;
        for (++k; k < tokens.size() && tokens[k].text != ";"; ++k)
            if (tokens[k].word) names.push_back(tokens[k].text);
    }
    return names;
}

// Whether the line before `offset` is a `#[test]` attribute (or a `#[cfg(test)]`).
bool after_test_attribute(const SourceView& view, std::size_t offset) {
    const std::string& masked = view.masked();
    std::size_t start = line_start(masked, offset);
    while (start > 0) {
        const std::size_t previous = line_start(masked, start - 1);
        std::string_view line = std::string_view(masked).substr(previous, start - 1 - previous);
        line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
        if (line.starts_with("#[test") || line.starts_with("#[cfg(test")) return true;
        if (!line.starts_with("#[")) return false;
        start = previous;
    }
    return false;
}

}  // namespace rust_rules

FreeformProgram assemble_rust(const MultiplETask& task, std::string_view entry, std::string_view code) {
    using namespace rust_rules;
    FreeformProgram program;
    program.file_name = "prog.rs";
    const SourceView view(code, Language::rust);
    const auto& tokens = view.tokens();
    std::vector<Span> spans;
    for (std::size_t k = 0; k + 2 < tokens.size(); ++k) {
        if (tokens[k].depth != 0) continue;
        if (!spans.empty() && tokens[k].offset < spans.back().end) continue;
        std::optional<Span> span;
        std::string what;
        if (tokens[k].text == "fn" && tokens[k + 1].word && tokens[k + 1].text != entry &&
            (tokens[k + 1].text == "main" || after_test_attribute(view, tokens[k].offset))) {
            span = definition_span(view, k, k + 2, true);
            what = "fn " + std::string(tokens[k + 1].text);
        } else if (tokens[k].text == "mod" && tokens[k + 1].word && tokens[k + 2].text == "{" &&
                   (tokens[k + 1].text.find("test") != std::string_view::npos || after_test_attribute(view, tokens[k].offset))) {
            span = definition_span(view, k, k + 2, true);
            what = "mod " + std::string(tokens[k + 1].text);
        }
        if (span) {
            spans.push_back(*span);
            program.removed.push_back(what);
        }
    }
    const std::string body = remove_spans(code, spans);

    // The prompt's `use` lines (two rows import HashMap), unless the answer imports those names itself: a second
    // `use` of the same name is an error (E0252).
    const SourceView answer(body, Language::rust);
    const auto answer_names = used_names(answer);
    const std::string_view preamble = prompt_preamble(task);
    std::string head;
    const SourceView prompt(preamble, Language::rust);
    const auto& prompt_tokens = prompt.tokens();
    for (std::size_t k = 0; k < prompt_tokens.size(); ++k) {
        if (prompt_tokens[k].text != "use" || prompt_tokens[k].depth != 0) continue;
        const auto semicolon = prompt.find(k, ";");
        if (!semicolon) break;
        bool already = false;
        std::string_view last;
        for (std::size_t j = k + 1; j < *semicolon; ++j)
            if (prompt_tokens[j].word) last = prompt_tokens[j].text;
        already = std::find(answer_names.begin(), answer_names.end(), last) != answer_names.end();
        if (!already) {
            const std::size_t begin = prompt_tokens[k].offset;
            head += std::string(preamble.substr(begin, prompt_tokens[*semicolon].offset + 1 - begin)) + "\n";
        }
        k = *semicolon;
    }
    program.source = head + body + "\n" + tests_without_closing_line(task.tests);
    return program;
}

}  // namespace e2beval::assembly

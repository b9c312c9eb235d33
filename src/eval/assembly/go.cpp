// Go: the prompt's package clause (the tests' package: `<name>_test`), one import block merging the prompt's and
// the answer's imports, the answer without its own main() and its Test/Benchmark/Example/Fuzz functions (a model's
// TestXxx often has the row's test's name), then the tests. An import is dropped only when the cuts left it unused:
// one the answer never used stays, and Go rejects the program as it would the answer itself.
#include <algorithm>

#include "languages.hpp"
#include "source_scan.hpp"

namespace e2beval::assembly {

namespace go_rules {

struct ImportSpec {
    std::string text;   // `"strings"`, `str "strings"`, `_ "embed"`
    std::string alias;  // as written, or empty
    std::string path;
};

std::string trimmed(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\r\n;");
    if (first == std::string_view::npos) return {};
    const std::size_t last = text.find_last_not_of(" \t\r\n;");
    return std::string(text.substr(first, last - first + 1));
}

// One spec, from the original text of a line (the mask blanks the path's contents).
std::optional<ImportSpec> parse_spec(std::string_view line) {
    const std::string text = trimmed(line.substr(0, line.find("//")));
    const std::size_t quote = text.find_first_of("\"`");
    if (quote == std::string::npos) return std::nullopt;
    const std::size_t close = text.find(text[quote], quote + 1);
    if (close == std::string::npos) return std::nullopt;
    ImportSpec spec;
    spec.alias = trimmed(std::string_view(text).substr(0, quote));
    spec.path = text.substr(quote + 1, close - quote - 1);
    spec.text = spec.alias.empty() ? text.substr(quote, close - quote + 1) : spec.alias + " " + text.substr(quote, close - quote + 1);
    return spec;
}

// The name code uses for an import: its alias, or the path's last element ("math/rand" -> rand; a trailing major
// version "gopkg.in/x/v2" -> x).
std::string package_name(const ImportSpec& spec) {
    if (!spec.alias.empty()) return spec.alias;
    std::string path = spec.path;
    std::size_t slash = path.rfind('/');
    std::string last = slash == std::string::npos ? path : path.substr(slash + 1);
    if (slash != std::string::npos && last.size() > 1 && last[0] == 'v' &&
        last.find_first_not_of("0123456789", 1) == std::string::npos) {
        path.erase(slash);
        slash = path.rfind('/');
        last = slash == std::string::npos ? path : path.substr(slash + 1);
    }
    const std::size_t dot = last.find('.');
    return dot == std::string::npos ? last : last.substr(0, dot);
}

// The top-level import declarations of `view` (and their spans, when wanted), and the package clause's span.
std::vector<ImportSpec> collect_imports(const SourceView& view, std::vector<Span>* spans) {
    std::vector<ImportSpec> specs;
    const auto& tokens = view.tokens();
    const std::string& code = view.code();
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        if (tokens[k].depth != 0 || tokens[k].parens != 0) continue;
        if (tokens[k].text == "package" && spans) {
            const std::size_t end = line_end(code, tokens[k].offset);
            spans->push_back({line_start(code, tokens[k].offset), std::min(end + 1, code.size())});
            continue;
        }
        if (tokens[k].text != "import") continue;
        Span span{line_start(code, tokens[k].offset), 0};
        if (view.is(k + 1, "(")) {
            const auto close = view.closing(k + 1);
            const std::size_t end = close ? tokens[*close].offset : code.size();
            const std::size_t begin = tokens[k + 1].offset + 1;
            for (std::size_t start = begin; start < end;) {
                const std::size_t stop = std::min(line_end(code, start), end);
                // A line may hold several specs separated by ';'.
                std::string_view line = std::string_view(code).substr(start, stop - start);
                for (std::size_t piece = 0; piece <= line.size();) {
                    const std::size_t semicolon = std::min(line.find(';', piece), line.size());
                    if (const auto spec = parse_spec(line.substr(piece, semicolon - piece))) specs.push_back(*spec);
                    piece = semicolon + 1;
                }
                start = stop + 1;
            }
            span.end = std::min(line_end(code, end) + 1, code.size());
            if (close) k = *close;
        } else {
            const std::size_t end = line_end(code, tokens[k].offset);
            if (const auto spec = parse_spec(std::string_view(code).substr(tokens[k].offset + 6, end - tokens[k].offset - 6)))
                specs.push_back(*spec);
            span.end = std::min(end + 1, code.size());
        }
        if (spans) spans->push_back(span);
    }
    return specs;
}

// Whether code refers to the package `name` (`name.Something`, not `x.name.Something`).
bool uses_package(const SourceView& view, std::string_view name) {
    const auto& tokens = view.tokens();
    for (std::size_t k = 0; k + 1 < tokens.size(); ++k)
        if (tokens[k].text == name && tokens[k + 1].text == "." && (k == 0 || tokens[k - 1].text != ".")) return true;
    return false;
}

bool is_test_function(std::string_view name) {
    for (const std::string_view prefix : {"Test", "Benchmark", "Example", "Fuzz"})
        if (name.starts_with(prefix)) return true;
    return false;
}

}  // namespace go_rules

FreeformProgram assemble_go(const MultiplETask& task, std::string_view, std::string_view code) {
    using namespace go_rules;
    FreeformProgram program;
    program.file_name = "prog_test.go";
    const SourceView original(code, Language::go);
    std::vector<Span> spans;
    const auto answer_specs = collect_imports(original, &spans);
    const auto& tokens = original.tokens();
    for (std::size_t k = 0; k + 2 < tokens.size(); ++k) {
        if (tokens[k].depth != 0 || tokens[k].text != "func" || !tokens[k + 1].word || tokens[k + 2].text != "(") continue;
        const auto name = tokens[k + 1].text;
        if (name != "main" && !is_test_function(name)) continue;
        if (const auto span = definition_span(original, k, k + 2)) {
            spans.push_back(*span);
            program.removed.push_back("func " + std::string(name));
        }
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    const std::string body = remove_spans(code, spans);

    const std::string_view preamble = prompt_preamble(task);
    const SourceView prompt(preamble, Language::go);
    const auto prompt_specs = collect_imports(prompt, nullptr);
    std::string package_line;
    if (const auto clause = prompt.find(0, "package", 0)) {
        const std::size_t begin = prompt.tokens()[*clause].offset;
        package_line = std::string(preamble.substr(begin, line_end(preamble, begin) - begin));
    }

    const SourceView rest(body + "\n" + task.tests, Language::go);
    std::vector<std::string> kept;
    const auto keep = [&](const ImportSpec& spec, bool from_answer) {
        if (std::find(kept.begin(), kept.end(), spec.text) != kept.end()) return;
        const std::string name = package_name(spec);
        const bool blank_or_dot = spec.alias == "_" || spec.alias == ".";
        // Strict: an import the answer wrote but never used stays (the answer alone would not compile either).
        if (blank_or_dot || uses_package(rest, name) || (from_answer && !uses_package(original, name))) kept.push_back(spec.text);
        else if (from_answer) program.removed.push_back("import " + spec.text + " (unused once its own main/tests were cut)");
    };
    for (const auto& spec : prompt_specs) keep(spec, false);
    for (const auto& spec : answer_specs) keep(spec, true);
    std::string imports;
    if (!kept.empty()) {
        imports = "import (\n";
        for (const auto& spec : kept) imports += "    " + spec + "\n";
        imports += ")\n";
    }
    program.source = package_line + "\n\n" + imports + "\n" + body + "\n" + task.tests;
    return program;
}

}  // namespace e2beval::assembly

// The MultiPL-E assembly's common half: language names, the prompt's entry function, which fenced block of a
// free-form answer is taken, MultiPL-E's own continuation shape, and the dispatch to each language's rules.
#include <algorithm>
#include <vector>

#include "e2beval/analysis/extract.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"
#include "languages.hpp"
#include "source_scan.hpp"

namespace e2beval {

using assembly::SourceView;

std::optional<Language> multipl_e_language(std::string_view name) noexcept {
    using L = Language;
    static constexpr std::pair<std::string_view, L> names[] = {
        {"cpp", L::cpp},       {"c++", L::cpp},         {"go_test.go", L::go}, {"go", L::go},
        {"java", L::java},     {"js", L::javascript},   {"javascript", L::javascript},
        {"rs", L::rust},       {"rust", L::rust},       {"sh", L::bash},       {"bash", L::bash},
        {"ts", L::typescript}, {"typescript", L::typescript}};
    for (const auto& [known, language] : names)
        if (known == name) return language;
    return std::nullopt;
}

bool is_multipl_e_language(Language language) noexcept {
    switch (language) {
        case Language::cpp:
        case Language::go:
        case Language::java:
        case Language::javascript:
        case Language::rust:
        case Language::bash:
        case Language::typescript: return true;
        default: return false;
    }
}

std::string_view to_string(AnswerKind kind) noexcept {
    switch (kind) {
        case AnswerKind::continuation: return "continuation";
        case AnswerKind::freeform: return "freeform";
        case AnswerKind::automatic: return "auto";
    }
    return "auto";
}

std::optional<AnswerKind> answer_kind_from_string(std::string_view name) noexcept {
    if (name == "continuation") return AnswerKind::continuation;
    if (name == "freeform") return AnswerKind::freeform;
    if (name == "auto" || name == "automatic") return AnswerKind::automatic;
    return std::nullopt;
}

namespace assembly {

std::string_view prompt_preamble(const MultiplETask& task) {
    const std::string_view prompt = task.prompt;
    std::size_t end = prompt.find_last_not_of(" \t\r\n");
    if (end == std::string_view::npos) return {};
    return prompt.substr(0, line_start(prompt, end));
}

namespace common_rules {

// Whether a fence's tag names the row's language: its name or an alias in the language's descriptor
// (src/core/languages/), `{.cpp}` and `cpp:main.cpp` read as `cpp`; a C++ row also takes `c`, `h` and `hpp` blocks
// (models tag C++ so), a TypeScript row `tsx`.
bool tag_names(std::string_view tag, Language language) {
    while (!tag.empty() && (tag.front() == '{' || tag.front() == '.')) tag.remove_prefix(1);
    tag = tag.substr(0, tag.find_first_of(":,{}"));
    std::string lower(tag);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto named = language_from_tag(lower);
    if (named == language) return true;
    if (language == Language::cpp) return named == Language::c || lower == "h" || lower == "hpp";
    if (language == Language::typescript) return lower == "tsx";
    return false;
}

bool defines_entry(std::string_view code, Language language, std::string_view entry) {
    if (code.find(entry) == std::string_view::npos) return false;
    if (language == Language::bash) return bash_defines_function(code, entry);
    return defines_function(SourceView(code, language), entry);
}

bool is_blank(std::string_view text) { return text.find_first_not_of(" \t\r\n") == std::string_view::npos; }

struct ChosenCode {
    std::string code;
    std::string explanation;
};

// The code of a free-form answer: among the fenced blocks tagged with the language or untagged, the first that
// defines the entry; else the first of them; else the first block; with no fence, the whole answer.
ChosenCode choose_code(std::string_view answer, Language language, std::string_view entry) {
    const auto blocks = CodeExtractor::fenced_blocks(answer);
    if (blocks.empty()) {
        std::string whole(answer);
        whole.erase(std::remove(whole.begin(), whole.end(), '\r'), whole.end());
        return {whole, "no fenced block: the whole answer"};
    }
    const auto describe = [&](std::size_t index, std::string_view why) {
        const auto& block = blocks[index];
        return "fenced block " + std::to_string(index + 1) + " of " + std::to_string(blocks.size()) + " (```" + block.tag +
               " at line " + std::to_string(block.first_line) + (block.terminated ? "" : ", never closed") + ", " +
               std::string(why) + ")";
    };
    std::optional<std::size_t> first_candidate;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (is_blank(blocks[i].code) || !(blocks[i].tag.empty() || tag_names(blocks[i].tag, language))) continue;
        if (!first_candidate) first_candidate = i;
        if (defines_entry(blocks[i].code, language, entry)) return {blocks[i].code, describe(i, "defines " + std::string(entry))};
    }
    if (first_candidate) return {blocks[*first_candidate].code, describe(*first_candidate, "the first in the language")};
    for (std::size_t i = 0; i < blocks.size(); ++i)
        if (!is_blank(blocks[i].code)) return {blocks[i].code, describe(i, "no block is in the language: the first")};
    return {std::string(answer), "only empty fenced blocks: the whole answer"};
}

// MultiPL-E's own program: prompt + continuation cut at the first stop token + "\n" + tests.
AssembledProgram continuation_program(const MultiplETask& task, std::string_view continuation) {
    AssembledProgram program;
    program.language = task.language;
    program.kind = AnswerKind::continuation;
    const std::string cut = cut_at_stop_tokens(continuation, task.stop_tokens);
    program.source = task.prompt + cut + "\n" + task.tests;
    program.extracted = cut;
    if (cut.size() < continuation.size()) {
        std::string stop;
        for (const auto& token : task.stop_tokens)
            if (!token.empty() && continuation.substr(cut.size()).starts_with(token)) stop = token;
        std::string shown;
        for (const char c : stop) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
        program.explanation = "continuation cut at the stop token \"" + shown + "\"";
    } else {
        program.explanation = "continuation (no stop token in it)";
    }
    using L = Language;
    switch (task.language) {
        case L::cpp: program.file_name = "prog.cpp"; break;
        case L::go: program.file_name = "prog_test.go"; break;
        case L::java:
            program.file_name = "Problem.java";
            program.main_class = "Problem";
            break;
        case L::javascript: program.file_name = "prog.js"; break;
        case L::rust: program.file_name = "prog.rs"; break;
        case L::bash: program.file_name = "prog.sh"; break;
        case L::typescript: program.file_name = "prog.ts"; break;
        default: program.file_name = "prog"; break;  // not a MultiPL-E language: refused before (assemble_multipl_e)
    }
    return program;
}

}  // namespace common_rules
}  // namespace assembly

std::string multipl_e_entry_point(const MultiplETask& task) {
    // The prompt's last line is the signature: the name after fn/func/function, else the name before the first '('.
    const std::string_view prompt = task.prompt;
    const std::size_t end = prompt.find_last_not_of(" \t\r\n");
    if (end != std::string_view::npos) {
        const std::size_t start = assembly::line_start(prompt, end);
        const auto language = task.language == Language::bash ? Language::cpp : task.language;
        const SourceView line(prompt.substr(start, end + 1 - start), language);
        const auto& tokens = line.tokens();
        for (std::size_t k = 0; k + 1 < tokens.size(); ++k)
            if ((tokens[k].text == "fn" || tokens[k].text == "func" || tokens[k].text == "function") && tokens[k + 1].word)
                return std::string(tokens[k + 1].text);
        for (std::size_t k = 1; k < tokens.size(); ++k)
            if (tokens[k].text == "(" && tokens[k - 1].word) return std::string(tokens[k - 1].text);
    }
    throw input_error("MultiPL-E row '" + task.task_id + "': the prompt does not end with a function's signature, so the "
                      "function the tests call is unknown; is `prompt` the row's prompt?");
}

AssembledProgram assemble_multipl_e(const MultiplETask& task, std::string_view answer, AnswerKind kind) {
    if (!is_multipl_e_language(task.language))
        throw input_error("MultiPL-E row '" + task.task_id + "': " + std::string(to_string(task.language)) +
                          " is not a language e2beval assembles MultiPL-E programs for (cpp, go, java, javascript, rust, bash, typescript)");
    const std::string entry = multipl_e_entry_point(task);
    if (kind == AnswerKind::continuation) return assembly::common_rules::continuation_program(task, answer);
    auto chosen = assembly::common_rules::choose_code(answer, task.language, entry);
    if (!assembly::common_rules::defines_entry(chosen.code, task.language, entry)) {
        // A body-only answer (or a raw continuation): MultiPL-E's shape with that code.
        auto program = assembly::common_rules::continuation_program(task, chosen.code);
        program.explanation = chosen.explanation + "; it does not define " + entry + ": " + program.explanation;
        return program;
    }
    using L = Language;
    assembly::FreeformProgram built;
    switch (task.language) {
        case L::cpp: built = assembly::assemble_cpp(task, entry, chosen.code); break;
        case L::go: built = assembly::assemble_go(task, entry, chosen.code); break;
        case L::java: built = assembly::assemble_java(task, entry, chosen.code); break;
        case L::javascript:
        case L::typescript: built = assembly::assemble_javascript(task, entry, chosen.code); break;
        case L::rust: built = assembly::assemble_rust(task, entry, chosen.code); break;
        case L::bash: built = assembly::assemble_bash(task, entry, chosen.code); break;
        default: break;
    }
    AssembledProgram program;
    program.language = task.language;
    program.kind = AnswerKind::freeform;
    program.source = std::move(built.source);
    program.file_name = std::move(built.file_name);
    program.main_class = std::move(built.main_class);
    program.explanation = chosen.explanation;
    program.extracted = std::move(chosen.code);
    if (!built.removed.empty()) {
        program.explanation += "; removed: ";
        const std::size_t shown = std::min<std::size_t>(built.removed.size(), 6);
        for (std::size_t i = 0; i < shown; ++i) program.explanation += (i ? ", " : "") + built.removed[i];
        if (built.removed.size() > shown) program.explanation += " and " + std::to_string(built.removed.size() - shown) + " more";
    }
    return program;
}

}  // namespace e2beval

// MultiPL-E assembly: from a MultiPL-E row (prompt, tests, stop tokens) and one model answer, the program to
// judge. The rules per language, with the dataset rows that motivate them, are in docs/languages.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/core/types.hpp"

namespace e2beval {

// The languages MultiPL-E rows come in that e2beval assembles: cpp, go, java, javascript, rust, bash, typescript.
// A row's `language` field names them the MultiPL-E way ("cpp", "go_test.go", "java", "js", "rs", "sh", "ts");
// e2beval's canonical names are accepted too. nullopt for another language.
std::optional<Language> multipl_e_language(std::string_view name) noexcept;
bool is_multipl_e_language(Language language) noexcept;

// What an answer is:
//  - continuation: the raw text that follows the prompt (MultiPL-E's own completions). The program is
//    MultiPL-E's: prompt + answer cut at its first stop token + "\n" + tests.
//  - freeform: a chat answer with the code in a fence (or bare code), which usually repeats the prompt's
//    function and may add imports, its own main, tests or example usage.
//  - automatic: freeform when the chosen code defines the prompt's function, else continuation.
enum class AnswerKind { continuation, freeform, automatic };
std::string_view to_string(AnswerKind kind) noexcept;
std::optional<AnswerKind> answer_kind_from_string(std::string_view name) noexcept;

// One MultiPL-E row, as the dataset writes it.
struct MultiplETask {
    std::string task_id;  // the row's `name` (or `task_id`): "HumanEval_0_has_close_elements"
    Language language = Language::cpp;
    std::string prompt;
    std::string tests;
    std::vector<std::string> stop_tokens;
};

// The prompt's function (the one the tests call): "has_close_elements". Throws input_error when the prompt does
// not end with a function's signature.
std::string multipl_e_entry_point(const MultiplETask& task);

struct AssembledProgram {
    Language language = Language::cpp;
    std::string source;
    // The file MultiPL-E writes the program to: "prog.cpp", "prog_test.go" (go test needs the suffix),
    // "prog.rs", "prog.js", "prog.ts", "prog.sh"; Java: the public class's name + ".java", or the
    // entry class's when none is public ("Problem.java").
    std::string file_name;
    std::string main_class;  // Java: the class whose main() holds the tests ("Problem"); empty otherwise
    AnswerKind kind = AnswerKind::continuation;  // which shape was built (never automatic)
    // What was taken and cut, for a verdict to explain itself: "fenced block 1 of 2 (```cpp at line 3);
    // removed: int main()".
    std::string explanation;
    // The answer's code the program was built from: the continuation cut at its stop token, or the block chosen
    // from a free-form answer (before the language's cuts).
    std::string extracted;
};

// The program for `answer`. Never throws for an answer, however broken (a broken answer makes a program that
// fails to compile or fails its tests); throws input_error for a row whose prompt has no function.
AssembledProgram assemble_multipl_e(const MultiplETask& task, std::string_view answer,
                                    AnswerKind kind = AnswerKind::automatic);

}  // namespace e2beval

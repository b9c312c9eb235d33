// The test shapes that run a program of the test's own language, with no Python harness around it: stdin/stdout
// cases (one compile, every case run against its artifact), `tests` appended to the answer (MultiPL-E's shape,
// assembled by eval/assembly.hpp, passing on exit 0) in every language but Python. (testCode with expectedOutput
// runs natively in every language already: src/eval/shapes/test_code.cpp.) docs/test-shapes.md has the table of shape x language.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include "e2beval/eval/runner.hpp"

namespace e2beval::compiled_shapes {

// Said wherever a test in another language than Python asks for a shape only Python has.
inline constexpr std::string_view kShapesOfOtherLanguages =
    "a test in another language takes cases (a list of {stdin, stdout}: the program is compiled once and run "
    "per case), tests (code appended to the answer, MultiPL-E's shape, with prompt assembled as `e2beval eval "
    "--multipl-e` does; passes when the program exits 0), or testCode with expectedOutput (or expectedOutput "
    "alone: the answer's own output) (docs/test-shapes.md)";

// vars.stop_tokens: a list of strings, one string (one token), or a list written as JSON text (promptfoo expands a
// var that is a list into one test per item). Throws input_error otherwise.
std::vector<std::string> stop_tokens_of(const boost::json::value& value);

// What a test in `language` cannot be, as an input_error (C `tests` with a prompt: MultiPL-E has no C; a prompt
// that ends with no function's signature).
void check_spec(const TestSpec& spec, Language language);

// Whether `spec` in `language` runs as a program of that language: stdin/stdout cases and `tests` in every
// language but Python.
bool runs_natively(const TestSpec& spec, Language language) noexcept;

// For a test whose vars (and config) name no language: the language of the answer's fence when that is a compiled
// one (C, C++, Go, Rust, Java, TypeScript) and the shape runs natively in it; nullopt keeps Python.
std::optional<Language> language_of_fence(const TestSpec& spec, Language fence) noexcept;

// Builds the program (stdin/stdout: the extracted code; `tests`: MultiPL-E's assembly of `model_output` with a
// prompt, else the extracted code and the tests), scans it, and fills `prepared`: its request(s), or a failing
// verdict when the scanner blocks it.
void plan(PreparedEvaluation& prepared, std::string_view model_output, const Extraction& extraction,
          const TestSpec& spec, Language language, const RunnerOptions& options);

// Whether the cases after the first run: the first compiled (or the language compiles nothing) and the sandbox
// took it. A failed compile fails every case with the compiler's words, and nothing else runs.
bool runs_later_cases(const ExecResult& first) noexcept;

// Every request of `prepared` in order on `sandbox` (the later ones only when runs_later_cases): a request the
// sandbox refuses (a missing toolchain) becomes its result with outcome sandbox_error, as in a batch.
std::vector<ExecResult> execute_all(Sandbox& sandbox, const PreparedEvaluation& prepared);

// The verdict of the programs' results (the first request's, then each later one that ran).
Verdict judge(PreparedEvaluation prepared, std::vector<ExecResult> results, const TestSpec& spec, const CompareMode& mode);

// "compile: ok in 812 ms (g++ 12.2.0), 1 compiler run, 2 cases from the compile cache", then one line per case
// ("case 2: PASS  ok  3 ms  Correct output: 6"): for the CLI's table under a test that has a compile stage or
// cases run as programs; empty otherwise.
std::vector<std::string> detail_lines(const Verdict& verdict);

}  // namespace e2beval::compiled_shapes

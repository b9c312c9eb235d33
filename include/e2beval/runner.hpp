// Runner: turns a test's vars into a program around the extracted code, runs it in a Sandbox and
// compares what it printed with what the test expected, producing a Verdict that explains itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include "e2beval/extract.hpp"
#include "e2beval/safety.hpp"
#include "e2beval/sandbox.hpp"
#include "e2beval/types.hpp"

namespace e2beval {

// One call of the function under test: `input` is source text placed between the parentheses,
// exactly as the tutorial does (`'racecar'`, `[1, 5, 3]`, `5`).
struct TestCase {
    std::string input;
    std::optional<std::string> expected_output;  // compared with str(result), trimmed
    std::optional<std::string> expected_error;   // exception class name, e.g. "ValueError"
};

// The test shapes of the tutorial and of promptfoo's E2B page, read from promptfoo's `vars`.
struct TestSpec {
    Language language = Language::python;
    std::optional<std::string> function_name;  // tutorial shape: calls function_name(input) per case
    std::vector<TestCase> cases;
    std::optional<std::string> test_code;        // seed-2 shape: code + "\n\n" + testCode ...
    std::optional<std::string> expected_output;  // ... and its trimmed stdout must equal expectedOutput

    // Throws input_error naming the missing or mistyped field and the shapes that are accepted.
    static TestSpec from_vars(const boost::json::object& vars);
    static TestSpec from_vars_json(std::string_view vars_json);
};

struct CaseResult {
    std::string input;
    std::string expected;  // the expected output, or "raises <Error>"
    std::string actual;    // str(result), or "<Error>: message"
    std::string stdout_data;  // what the call printed
    bool passed = false;
    std::string reason;
};

struct Verdict {
    bool pass = false;
    double score = 0.0;  // fraction of cases passed
    std::string reason;  // the tutorial's wording first, then detail
    std::vector<CaseResult> cases;
    std::optional<Extraction> extraction;
    std::vector<Finding> findings;
    std::optional<ExecResult> exec;
};

struct RunnerOptions {
    Policy policy;       // scanner policy
    bool scan = true;    // false: skip the scanner (the sandbox still applies)
    bool keep_main = false;      // extraction: keep `if __name__ == "__main__":` sections
    bool keep_examples = false;  // extraction: keep top-level example calls and tests
    Limits limits;
    IsolationProfile isolation;
};

// An evaluation up to the point where its program must run: either already decided (no code, unsafe
// code: `verdict` holds the reason and `request` is empty) or waiting for `request` to be executed.
struct PreparedEvaluation {
    Verdict verdict;
    std::optional<ExecRequest> request;
    std::string marker;  // delimits the harness's results in the program's stdout
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

private:
    Sandbox& sandbox_;
    RunnerOptions options_;
};

// The Python source the Runner executes for `spec` around `code` (exposed for tests and --explain).
std::string build_program(std::string_view code, const TestSpec& spec, std::string_view result_marker);

}  // namespace e2beval

// A test shape (docs/test-shapes.md) as one handler: how its vars are read, which program runs around the
// model's code, and how that program's report becomes the verdict's cases. The Runner (src/eval/runner.cpp)
// asks the handler of a spec's shape at every step and decides nothing by shape itself. A new shape is a file
// in this folder defining a Shape, its TestShape value (and the TestSpec fields it reads), and one line in
// registry.cpp.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/fwd.hpp>

#include "e2beval/eval/runner.hpp"

namespace e2beval::shapes {

// Said when the vars describe no test, or a test whose shape needs what they lack.
inline constexpr std::string_view kAcceptedShapes =
    "give function_name with test_cases (or test_input and expected_output / expected_error), testCode with "
    "expectedOutput (or expectedOutput alone: the answer's own output), prompt + test + entry_point (HumanEval), "
    "tests (Python asserts; in another language, appended to the answer), or cases (a list of {stdin, stdout}); "
    "optional: setup, compare, language (docs/test-shapes.md)";

// A case before anything ran: what it runs and what it expects.
CaseResult case_outline(std::string input, std::string expected);

// What judging a harness's report needs besides the spec: how outputs compare, the limits a case shares, and
// where a case that hit one of the sandbox's limits says so (the verdict's execution then carries that outcome).
struct JudgeContext {
    const TestSpec& spec;
    const CompareMode& mode;
    const Limits& limits;
    const std::string& language_note;  // "run as ...": why the code ran in the language it ran in, or empty
    std::optional<std::pair<Outcome, std::string>> limit_hit = std::nullopt;
};

class Shape {
public:
    virtual ~Shape() = default;

    virtual TestShape id() const noexcept = 0;
    virtual std::string_view name() const noexcept = 0;  // to_string(TestShape): "function_calls", "stdio", ...

    // ---- read: TestSpec::from_vars asks the shapes in registry order; the first that claims the vars reads them.
    // `spec` already holds what every shape shares (language, setup, compare, function_name).
    virtual bool claims(const boost::json::object& vars, const TestSpec& spec) const = 0;
    // Fills `spec` (sets spec.shape); throws input_error naming the missing or mistyped field.
    virtual void read(const boost::json::object& vars, TestSpec& spec) const = 0;
    // When no shape claims the vars: what this shape would have needed, if the vars came close to it.
    virtual std::optional<std::string> near_miss(const boost::json::object&, const TestSpec&) const { return std::nullopt; }
    // Whether the shape exists only as Python (a harness that calls functions, HumanEval's check()).
    virtual bool python_only() const noexcept { return false; }
    // Whether, in another language than Python, the shape runs as a program of that language with no Python
    // harness (src/eval/compiled_shapes.cpp), and so may take a compiled language from the answer's fence.
    virtual bool runs_natively_in_other_languages() const noexcept { return false; }
    // Whether a test whose vars name no language runs in the language of the answer's fence, whatever it is.
    virtual bool takes_any_fence_language() const noexcept { return false; }

    // ---- build
    // Whether the program is the answer's top-level code (its main() call, its __main__ section, its examples).
    virtual bool keeps_top_level_code() const noexcept { return false; }
    // Whether an answer in which the extractor finds no code is taken whole (a bare completion of the prompt).
    virtual bool takes_whole_output_as_code() const noexcept { return false; }
    // The Python program around `code` (setup excluded), reporting on the marker line when the shape reports.
    virtual std::string build(std::string_view code, const TestSpec& spec, std::string_view marker,
                              const Limits& limits) const = 0;

    // ---- judge
    // The cases the test has, with what each runs and expects, before anything ran.
    virtual std::vector<CaseResult> outline(const TestSpec& spec) const = 0;
    // Fills `cases` (as outline() made them) from the execution and the harness's report (the JSON after the last
    // marker line, nullptr when there was none). The default takes a report of one entry per case and hands each
    // to judge_case(); a report that is missing or short fails every case with the execution's error.
    virtual void judge(std::vector<CaseResult>& cases, const ExecResult& exec, const boost::json::value* report,
                       JudgeContext& context) const;
    // One case from its entry of the report.
    virtual void judge_case(CaseResult& result, const boost::json::object& entry, std::size_t index,
                            JudgeContext& context) const;
};

// Every shape, in the order TestSpec::from_vars asks them (registry.cpp).
std::span<const Shape* const> all();
const Shape& of(TestShape shape);

// Why an execution failed, for a case that has no report of its own: the compile error, the exception on the
// last line of a Python traceback ("Execution error: ValueError: ..."), or the outcome and its detail.
std::string execution_error(const ExecResult& exec);

}  // namespace e2beval::shapes

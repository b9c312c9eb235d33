// The promptfoo assertion's rich-result check (`config: {expect_results: ...}`, docs/promptfoo.md): what a cell
// must display (a png, a DataFrame's data, ...) and the cell that runs the answer in a session. One-shot runs
// produce no rich results; a session's cells do (src/local/session_agent/), as E2B's code interpreter shapes them.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/eval/answer.hpp"

namespace e2beval {

// At least `count` results of the cell carry `kind` (a result with png and text counts for both).
struct ExpectedResult {
    std::string kind;
    std::size_t count = 1;
};

// The kinds a cell's result can carry, as e2b_code_interpreter's Result names its fields.
const std::vector<std::string_view>& result_kinds();

// `expect_results` as written: a list of kinds ([png, data]; a kind listed twice wants two) or a mapping of kind
// to the least count ({png: 2}). Throws input_error saying what is wrong and listing the valid kinds.
std::vector<ExpectedResult> expected_results_from_json(const boost::json::value& value);

// The code the check runs as one cell, after the scanner saw it: the test's `setup`, the answer's code, and its
// `testCode` (which may call what the answer defines), from `vars`. status is blocked or not_run (reason says
// why) when it must not run; otherwise `ran` with `cell` set and nothing run yet.
struct ResultCell {
    AnswerRun answer;  // extraction and findings; its exec is never set
    std::string cell;
};
ResultCell prepare_result_cell(std::string_view model_output, const boost::json::object& vars, const AnswerOptions& options);

// Whether `vars` name a test shape (docs/test-shapes.md): then the test is graded as usual before the rich results
// are checked; without one, the rich results alone decide.
bool vars_describe_test(const boost::json::object& vars);

}  // namespace e2beval

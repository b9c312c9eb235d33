// SandboxFusion's stdin/stdout problems (CommonOJDataset, sandbox/utils/testing.py): the cases of a row, the
// /run_code request of each, and SandboxFusion's comparison of a run's stdout with the expected one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "server/sandbox_fusion/dataset_requests.hpp"
#include "server/sandbox_fusion/run_code.hpp"

namespace e2beval::server::sandbox_fusion {

struct StdioCase {
    std::string stdin_data;
    std::string expected_stdout;
    boost::json::object input;   // the case's `input` and `output` as given, for test_info
    boost::json::object output;
};

struct StdioPlan {
    std::string code;            // the answer's code (SandboxFusion's default_extract_helper)
    std::string extracted_type;  // "fenced", "incomplete_fenced", "heuristic" or "empty"
    RunCodeRequest run;          // every case's request but its stdin
    std::vector<StdioCase> cases;
};

// Throws SubmitRefused: 400 without config.language (upstream's message), 400 for a row whose `test` is not cases.
StdioPlan plan_stdio(const SubmitRequest& request, const boost::json::object& row);

// SandboxFusion's check_stdio_test_case: the run must be a Success; then both texts stripped and split into lines,
// the same number of lines, each pair equal after lower-casing and stripping, or both numbers within a relative
// 1e-5.
bool stdout_matches(std::string_view expected, std::string_view actual);

// One case's EvalTestCase: {passed, exec_info, test_info}; a passing case's texts are cut to 1000 characters
// (the first and last 498 around "...") unless `full_case` (config.extra.return_full_case).
boost::json::object judge_case(const StdioCase& test, const RunCodeResponse& response, bool full_case, bool& passed);

// SandboxFusion's truncate_str: at most 1000 characters (code points), the middle replaced by "...".
std::string truncate_middle(std::string_view text);

}  // namespace e2beval::server::sandbox_fusion

// One SWE-style evaluation, in a session of any Sandbox: copy the repository in at its base commit, apply the
// test patch, refuse or apply the model's patch (git apply, --3way, --reject, then patch --fuzz=5), run the
// tests with limits and no network, read per-test results, check that the suite really ran, and grade.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "e2beval/core/types.hpp"
#include "e2beval/swe/grading.hpp"
#include "e2beval/swe/instance.hpp"

namespace e2beval {
class Sandbox;
}

namespace e2beval::swe {

struct EvaluationOptions {
    // The Python the sandbox was made with (the faces make it; `python`, `pytest` of its virtualenv are first on
    // the sandbox's PATH, put there by the backend): an absolute path. Empty: the backend's default Python.
    std::string python_executable;
    // A template by name (docs/templates.md: a virtualenv mounted read-only, its bin first on PATH) instead of
    // python_executable; the sessions run in it.
    std::string template_name;
    // The whole session: memory, processes, workspace (the repository lives there), largest file.
    Limits limits = [] {
        Limits session;
        session.memory_bytes = 1024 * kMiB;
        session.max_processes = 256;
        session.workspace_bytes = 512 * kMiB;
        session.file_size_bytes = 256 * kMiB;
        return session;
    }();
    std::chrono::milliseconds test_timeout{300'000};   // the test command, as SWE-bench's eval script timeout
    std::chrono::milliseconds step_timeout{60'000};    // each other step (copy in, apply)
    bool protect_tests = false;  // refuse a patch that touches the test files (those of the test patch and test ids)
    std::size_t max_log_bytes = 1024 * 1024;           // of the test log kept in the verdict
};

// Where the evaluation ended. Model failures (unresolved, refused, empty) are apart from infrastructure
// failures (error), as SWE-bench reports them.
enum class EvaluationStatus { resolved, unresolved, empty_patch, error };
std::string_view to_string(EvaluationStatus status) noexcept;

struct Timings {
    std::chrono::nanoseconds session_start{0}, copy_in{0}, apply{0}, tests{0}, total{0};
};

struct Verdict {
    std::string instance_id;
    std::string model_name_or_path;
    EvaluationStatus status = EvaluationStatus::error;
    Resolution resolution = Resolution::none;
    std::string patch;                      // the diff taken from the prediction (extracted from a raw answer)
    std::optional<std::string> refused;     // why the patch was not applied (paths out, symlinks out, test files)
    bool applied = false;
    std::string apply_step;                 // the fallback step that applied it: "git apply --verbose", ...
    std::string apply_log;
    std::string applied_diff;               // what the repository's files became, as `git diff` shows it
    std::optional<int> test_exit_code;
    bool test_timed_out = false;
    bool suite_completed = false;           // the framework's own report (at a path the code cannot guess) was written
    std::vector<std::string> integrity;     // what did not add up: forged result lines, exit code vs results
    TestStatusMap test_statuses;            // every test the run reported
    GradeReport report;
    std::string test_log;
    std::string error;                      // for status error: what broke (not the model's fault)
    Timings timings;
};

// Runs the steps above for `patch` (a diff or a raw model answer) in a new session of `sandbox`. Never throws
// for a failure of the model's patch; infrastructure failures (repository missing, sandbox broken) give
// status error with the reason.
Verdict evaluate_patch(Sandbox& sandbox, const Instance& instance, const std::string& patch,
                       const EvaluationOptions& options = {}, const std::string& model_name_or_path = "");

// SWE-bench's validation: the gold patch must resolve the instance, and with no patch every FAIL_TO_PASS test
// must fail and every PASS_TO_PASS test pass. `problems` is empty when the instance is valid.
struct Validation {
    Verdict gold;
    Verdict empty;
    std::vector<std::string> problems;
    bool valid() const noexcept { return problems.empty(); }
};
Validation validate_instance(Sandbox& sandbox, const Instance& instance, const EvaluationOptions& options = {});

boost::json::object to_json(const Verdict& verdict);
boost::json::object to_json(const GradeReport& report);

}  // namespace e2beval::swe

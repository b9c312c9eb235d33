// A SWE verdict as JSON: the per-instance report file of `e2beval swe` and what the Python face returns.
// The grade keeps SWE-bench's report.json shape (tests_status: FAIL_TO_PASS/PASS_TO_PASS, success/failure).
#include <chrono>

#include <boost/json.hpp>

#include "e2beval/swe/evaluate.hpp"

namespace json = boost::json;

namespace e2beval::swe {

namespace {

double seconds(std::chrono::nanoseconds duration) { return std::chrono::duration<double>(duration).count(); }

json::object group(const TestGroupReport& report) {
    json::array success, failure;
    for (const auto& test : report.success) success.emplace_back(test.test);
    for (const auto& test : report.failure) failure.emplace_back(json::object{{"test", test.test}, {"status", test.status}});
    return {{"success", std::move(success)}, {"failure", std::move(failure)}};
}

}  // namespace

json::object to_json(const GradeReport& report) {
    return {{"resolution", to_string(report.resolution)},
            {"FAIL_TO_PASS", group(report.fail_to_pass)},
            {"PASS_TO_PASS", group(report.pass_to_pass)}};
}

namespace {

// The instance ids that named tests only once cut at the first whitespace (SWE-bench's ids), each with the
// tests it named and what it counted as; `shared` when it named several.
json::array cut_test_ids(const GradeReport& report) {
    json::array ids;
    for (const auto& cut : report.cut_ids) {
        json::object tests;
        for (const auto& [test, status] : cut.tests) tests[test] = to_string(status);
        ids.emplace_back(json::object{{"test", cut.test},
                                      {"group", cut.group},
                                      {"status", to_string(cut.status)},
                                      {"shared", cut.tests.size() > 1},
                                      {"counted_as", cut.tests.size() > 1
                                                         ? "one test, passed only if each of them passed (PASSED or XFAIL), "
                                                           "else with the worst of their statuses (FAILED, ERROR, SKIPPED)"
                                                         : "the one test whose id begins with it"},
                                      {"tests", std::move(tests)}});
    }
    return ids;
}

}  // namespace

json::object to_json(const Verdict& verdict) {
    json::object statuses;
    for (const auto& [test, status] : verdict.test_statuses) statuses[test] = to_string(status);
    json::array integrity;
    for (const auto& note : verdict.integrity) integrity.emplace_back(note);
    json::object object{
        {"instance_id", verdict.instance_id},
        {"model_name_or_path", verdict.model_name_or_path},
        {"status", to_string(verdict.status)},
        {"resolved", verdict.status == EvaluationStatus::resolved},
        {"resolution", to_string(verdict.resolution)},
        {"patch_is_empty", verdict.patch.empty()},
        {"refused", verdict.refused ? json::value(*verdict.refused) : json::value(nullptr)},
        {"patch_applied", verdict.applied},
        {"apply_step", verdict.apply_step.empty() ? json::value(nullptr) : json::value(verdict.apply_step)},
        {"apply_log", verdict.apply_log},
        {"applied_diff", verdict.applied_diff},
        {"test_exit_code", verdict.test_exit_code ? json::value(*verdict.test_exit_code) : json::value(nullptr)},
        {"test_timed_out", verdict.test_timed_out},
        {"suite_completed", verdict.suite_completed},
        {"integrity", std::move(integrity)},
        {"tests_status", to_json(verdict.report)},
        {"cut_test_ids", cut_test_ids(verdict.report)},
        {"test_statuses", std::move(statuses)},
        {"test_log", verdict.test_log},
        {"error", verdict.error.empty() ? json::value(nullptr) : json::value(verdict.error)},
        {"patch", verdict.patch},
        {"timings_s",
         json::object{{"session_start", seconds(verdict.timings.session_start)},
                      {"copy_in", seconds(verdict.timings.copy_in)},
                      {"apply", seconds(verdict.timings.apply)},
                      {"tests", seconds(verdict.timings.tests)},
                      {"total", seconds(verdict.timings.total)}}},
    };
    return object;
}

}  // namespace e2beval::swe

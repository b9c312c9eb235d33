// SWE-bench's grading rules (harness/grading.py): a test passes when the run reported it PASSED or XFAIL; a
// test the run did not report has failed; FULL needs every FAIL_TO_PASS and PASS_TO_PASS test to pass,
// PARTIAL some FAIL_TO_PASS with all PASS_TO_PASS, else NONE.
#include "e2beval/swe/grading.hpp"

namespace e2beval::swe {

std::string_view to_string(Resolution resolution) noexcept {
    switch (resolution) {
        case Resolution::full: return "FULL";
        case Resolution::partial: return "PARTIAL";
        case Resolution::none: return "NONE";
    }
    return "NONE";
}

namespace {

TestGroupReport group(const TestStatusMap& statuses, const std::vector<std::string>& tests) {
    TestGroupReport report;
    for (const auto& test : tests) {
        TestOutcome outcome{test, "missing", false};
        if (const auto found = statuses.find(test); found != statuses.end()) {
            outcome.status = std::string(to_string(found->second));
            outcome.ok = found->second == TestStatus::passed || found->second == TestStatus::xfail;
        }
        (outcome.ok ? report.success : report.failure).push_back(std::move(outcome));
    }
    return report;
}

}  // namespace

GradeReport grade(const TestStatusMap& statuses, const std::vector<std::string>& fail_to_pass,
                  const std::vector<std::string>& pass_to_pass) {
    GradeReport report;
    report.fail_to_pass = group(statuses, fail_to_pass);
    report.pass_to_pass = group(statuses, pass_to_pass);
    const bool all_fixed = report.fail_to_pass.failure.empty();
    const bool some_fixed = !report.fail_to_pass.success.empty();
    const bool nothing_broken = report.pass_to_pass.failure.empty();
    if (all_fixed && nothing_broken) report.resolution = Resolution::full;
    else if (some_fixed && nothing_broken) report.resolution = Resolution::partial;
    return report;
}

}  // namespace e2beval::swe

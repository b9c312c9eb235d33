// SWE-bench's grading rules (harness/grading.py): a test passes when the run reported it PASSED or XFAIL; a
// test the run did not report has failed; FULL needs every FAIL_TO_PASS and PASS_TO_PASS test to pass,
// PARTIAL some FAIL_TO_PASS with all PASS_TO_PASS, else NONE. pytest ids cut at the first whitespace, as
// SWE-bench's datasets hold them, name the reported tests whose ids begin so (grading.hpp, CutTestId).
#include "e2beval/swe/grading.hpp"

#include <map>

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

bool passes(TestStatus status) { return status == TestStatus::passed || status == TestStatus::xfail; }

// Which of several statuses counts for tests that share one id: the failing ones first.
int severity(TestStatus status) {
    switch (status) {
        case TestStatus::passed: return 0;
        case TestStatus::xfail: return 1;
        case TestStatus::skipped: return 2;
        case TestStatus::error: return 3;
        case TestStatus::failed: return 4;
    }
    return 4;
}

constexpr std::string_view kWhitespace = " \t\n\r\f\v";

// The reported tests whose ids hold whitespace, by their id cut at the first of it (what SWE-bench's pytest
// parser keeps). The others are found by their whole id.
using CutIndex = std::map<std::string, std::vector<std::pair<std::string, TestStatus>>, std::less<>>;

CutIndex index_cut_ids(const TestStatusMap& statuses) {
    CutIndex index;
    for (const auto& [id, status] : statuses)
        if (const auto space = id.find_first_of(kWhitespace); space != std::string::npos)
            index[id.substr(0, space)].emplace_back(id, status);
    return index;
}

TestGroupReport group(const TestStatusMap& statuses, const std::vector<std::string>& tests, const CutIndex* cut_index,
                      std::string_view group_name, std::vector<CutTestId>& cut_ids) {
    TestGroupReport report;
    for (const auto& test : tests) {
        TestOutcome outcome{test, "missing", false};
        const auto exact = statuses.find(test);
        const std::vector<std::pair<std::string, TestStatus>>* named_by_cut = nullptr;
        if (cut_index && test.find_first_of(kWhitespace) == std::string::npos)
            if (const auto found = cut_index->find(test); found != cut_index->end()) named_by_cut = &found->second;
        if (named_by_cut) {
            CutTestId named{test, std::string(group_name), *named_by_cut, TestStatus::passed};
            if (exact != statuses.end()) named.tests.insert(named.tests.begin(), *exact);
            for (const auto& [id, status] : named.tests)
                if (severity(status) > severity(named.status)) named.status = status;
            outcome.status = std::string(to_string(named.status));
            outcome.ok = passes(named.status);
            cut_ids.push_back(std::move(named));
        } else if (exact != statuses.end()) {
            outcome.status = std::string(to_string(exact->second));
            outcome.ok = passes(exact->second);
        }
        (outcome.ok ? report.success : report.failure).push_back(std::move(outcome));
    }
    return report;
}

}  // namespace

GradeReport grade(const TestStatusMap& statuses, const std::vector<std::string>& fail_to_pass,
                  const std::vector<std::string>& pass_to_pass, TestIdMatching matching) {
    GradeReport report;
    const auto cut_index = matching == TestIdMatching::cut_at_whitespace ? index_cut_ids(statuses) : CutIndex{};
    const CutIndex* cuts = matching == TestIdMatching::cut_at_whitespace ? &cut_index : nullptr;
    report.fail_to_pass = group(statuses, fail_to_pass, cuts, "FAIL_TO_PASS", report.cut_ids);
    report.pass_to_pass = group(statuses, pass_to_pass, cuts, "PASS_TO_PASS", report.cut_ids);
    const bool all_fixed = report.fail_to_pass.failure.empty();
    const bool some_fixed = !report.fail_to_pass.success.empty();
    const bool nothing_broken = report.pass_to_pass.failure.empty();
    if (all_fixed && nothing_broken) report.resolution = Resolution::full;
    else if (some_fixed && nothing_broken) report.resolution = Resolution::partial;
    return report;
}

}  // namespace e2beval::swe

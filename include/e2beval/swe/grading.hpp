// Grading as SWE-bench does it: every FAIL_TO_PASS test must now pass and every PASS_TO_PASS test must still
// pass (FULL); some FAIL_TO_PASS passing with PASS_TO_PASS intact is PARTIAL; anything else NONE. A test that
// is missing from the results counts as failed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "e2beval/swe/test_log.hpp"

namespace e2beval::swe {

enum class Resolution { full, partial, none };
std::string_view to_string(Resolution resolution) noexcept;  // "FULL", "PARTIAL", "NONE"

struct TestOutcome {
    std::string test;
    std::string status;  // a TestStatus name, or "missing" when the run did not report it
    bool ok = false;     // passed or xfail
};

struct TestGroupReport {
    std::vector<TestOutcome> success;
    std::vector<TestOutcome> failure;
};

struct GradeReport {
    TestGroupReport fail_to_pass;
    TestGroupReport pass_to_pass;
    Resolution resolution = Resolution::none;
};

GradeReport grade(const TestStatusMap& statuses, const std::vector<std::string>& fail_to_pass,
                  const std::vector<std::string>& pass_to_pass);

}  // namespace e2beval::swe

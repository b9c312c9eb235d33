// Grading as SWE-bench does it: every FAIL_TO_PASS test must now pass and every PASS_TO_PASS test must still
// pass (FULL); some FAIL_TO_PASS passing with PASS_TO_PASS intact is PARTIAL; anything else NONE. A test that
// is missing from the results counts as failed. pytest ids as SWE-bench's datasets write them (cut at the
// first space) are found the way its harness finds them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
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

// How an instance's test ids name the tests a run reported.
enum class TestIdMatching {
    exact,
    // SWE-bench's pytest log parser keeps a test's id up to its first whitespace, and its datasets list the
    // ids it kept: `test_x.py::test_y[a-An` for `test_x.py::test_y[a-An id]`. An instance id without
    // whitespace names every reported test whose id, cut there, is that id (exactly the test of that id when
    // it has no whitespace); an id with whitespace names only itself.
    cut_at_whitespace,
};

// An instance id that named reported tests only once their ids were cut at the first whitespace, and how
// they were counted: as one test that passed only if each of them passed (PASSED or XFAIL), else with the
// worst status among them (FAILED, then ERROR, then SKIPPED). Several tests sharing one id is SWE-bench's own
// ambiguity; its pytest parser keeps the status of the last of them in pytest's -rA summary, which lists
// failures and errors last, so a failure among them fails the id there too.
struct CutTestId {
    std::string test;                                       // the instance's id
    std::string group;                                      // "FAIL_TO_PASS" or "PASS_TO_PASS"
    std::vector<std::pair<std::string, TestStatus>> tests;  // the reported tests it names, with their statuses
    TestStatus status = TestStatus::failed;                 // what the id counted as
};

struct GradeReport {
    TestGroupReport fail_to_pass;
    TestGroupReport pass_to_pass;
    Resolution resolution = Resolution::none;
    std::vector<CutTestId> cut_ids;  // every id matched by its cut (shared when it names several tests)
};

GradeReport grade(const TestStatusMap& statuses, const std::vector<std::string>& fail_to_pass,
                  const std::vector<std::string>& pass_to_pass, TestIdMatching matching = TestIdMatching::exact);

}  // namespace e2beval::swe

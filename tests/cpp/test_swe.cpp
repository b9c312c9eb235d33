// Tests for the SWE pieces that need no sandbox: the diff in a model's answer, the checks that refuse a patch,
// the test-log parsers and SWE-bench's grading rules. The whole evaluation is tested through its faces
// (tests/integration/test_swe_cli.py, tests/python/test_swe.py) on real projects.
#include <doctest/doctest.h>

#include <string>

#include "e2beval/core/error.hpp"
#include "e2beval/swe/grading.hpp"
#include "e2beval/swe/instance.hpp"
#include "e2beval/swe/patch.hpp"
#include "e2beval/swe/test_log.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_swe {

using namespace e2beval::swe;

namespace {

const std::string kDiff =
    "diff --git a/pkg/mod.py b/pkg/mod.py\n"
    "--- a/pkg/mod.py\n"
    "+++ b/pkg/mod.py\n"
    "@@ -1,3 +1,3 @@\n"
    " def f(x):\n"
    "-    return x\n"
    "+    return abs(x)\n"
    " \n";

}  // namespace

TEST_CASE("extract_diff takes a bare diff whole, a fenced one out of prose, and restores trimmed blank context") {
    CHECK(extract_diff(kDiff) == kDiff);
    CHECK(extract_diff("Here is the fix:\n\n```diff\n" + kDiff + "```\n\nIt takes the absolute value.\n") == kDiff);
    CHECK(extract_diff("The fix:\n" + kDiff + "\nThat is all.") == kDiff);
    // promptfoo and chat front-ends trim the answer: the hunk's last (blank) context line comes back.
    CHECK(extract_diff(kDiff.substr(0, kDiff.size() - 2)) == kDiff);
    CHECK(extract_diff("I could not find the bug.").empty());
}

TEST_CASE("refuse_reason: paths out, symlinks out, git's directory and protected test files") {
    CHECK_FALSE(refuse_reason(kDiff).has_value());
    CHECK(refuse_reason("--- /dev/null\n+++ b/../../.bashrc\n@@ -0,0 +1 @@\n+x\n")->find("'..'") != std::string::npos);
    CHECK(refuse_reason("--- a/x\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n")->find("absolute") != std::string::npos);
    CHECK(refuse_reason("diff --git a/.git/hooks/post-commit b/.git/hooks/post-commit\nnew file mode 100755\n--- /dev/null\n"
                        "+++ b/.git/hooks/post-commit\n@@ -0,0 +1 @@\n+evil\n")
              ->find("git's own") != std::string::npos);
    const std::string link_out = "diff --git a/pkg/data b/pkg/data\nnew file mode 120000\n--- /dev/null\n+++ b/pkg/data\n"
                                 "@@ -0,0 +1 @@\n+../../etc\n\\ No newline at end of file\n";
    CHECK(refuse_reason(link_out)->find("symlink") != std::string::npos);
    const std::string link_in = "diff --git a/pkg/data b/pkg/data\nnew file mode 120000\n--- /dev/null\n+++ b/pkg/data\n"
                                "@@ -0,0 +1 @@\n+../docs\n\\ No newline at end of file\n";
    CHECK_FALSE(refuse_reason(link_in).has_value());
    CHECK(refuse_reason(kDiff, {{"pkg/mod.py"}})->find("test file") != std::string::npos);
    // A removed line that reads like a header is hunk content, not a path.
    CHECK_FALSE(refuse_reason("--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,1 @@\n--- /etc/passwd\n a\n").has_value());
}

TEST_CASE("the pytest parser reads -rA and -v lines, ids with spaces and ' - ' messages") {
    const auto statuses = parser_for("pytest").parse(
        "PASSED t.py::test_a\n"
        "FAILED t.py::test_b[x - y] - AssertionError: 1 - 2\n"
        "ERROR t.py::test_c - fixture missing\n"
        "t.py::test_d[a b] PASSED                                  [ 50%]\n"
        "XFAIL t.py::test_e - reason\n");
    CHECK(statuses.at("t.py::test_a") == TestStatus::passed);
    CHECK(statuses.at("t.py::test_b[x - y]") == TestStatus::failed);
    CHECK(statuses.at("t.py::test_c") == TestStatus::error);
    CHECK(statuses.at("t.py::test_d[a b]") == TestStatus::passed);
    CHECK(statuses.at("t.py::test_e") == TestStatus::xfail);
}

TEST_CASE("the unittest parser reads verbose result lines") {
    const auto statuses = parser_for("unittest").parse(
        "test_a (tests.test_m.T) ... ok\ntest_b (tests.test_m.T) ... FAIL\ntest_c (tests.test_m.T) ... skipped 'no'\n");
    CHECK(statuses.at("test_a (tests.test_m.T)") == TestStatus::passed);
    CHECK(statuses.at("test_b (tests.test_m.T)") == TestStatus::failed);
    CHECK(statuses.at("test_c (tests.test_m.T)") == TestStatus::skipped);
    CHECK_THROWS_AS(parser_for("nose"), e2beval::input_error);
}

TEST_CASE("grading: FULL, PARTIAL and NONE as SWE-bench grades, a missing test counts as failed") {
    const TestStatusMap statuses = {{"f1", TestStatus::passed}, {"f2", TestStatus::failed}, {"p1", TestStatus::passed},
                                    {"p2", TestStatus::xfail}};
    CHECK(grade(statuses, {"f1"}, {"p1", "p2"}).resolution == Resolution::full);
    CHECK(grade(statuses, {"f1", "f2"}, {"p1"}).resolution == Resolution::partial);
    CHECK(grade(statuses, {"f1"}, {"p1", "gone"}).resolution == Resolution::none);
    CHECK(grade(statuses, {"f2"}, {"p1"}).resolution == Resolution::none);
    CHECK(grade(statuses, {"f1"}, {"gone"}).pass_to_pass.failure.front().status == "missing");
}

TEST_CASE("grading SWE-bench's ids, cut at the first space: each names the tests whose ids begin so") {
    const TestStatusMap statuses = {
        {"t.py::test_h[employee_salary-Employee salary]", TestStatus::passed},
        {"t.py::test_h[employee_id-Employee]", TestStatus::passed},
        {"t.py::test_p[Test with + sign-x]", TestStatus::passed},         // two tests share "t.py::test_p[Test"
        {"t.py::test_p[Test with malformed utf8-y]", TestStatus::passed},
        {"t.py::test_t[david's code-D]", TestStatus::passed},             // and two "t.py::test_t[david's"
        {"t.py::test_t[david's Code-D]", TestStatus::failed},
        {"t.py::test_s[a b]", TestStatus::skipped},
        {"t.py::test_s[a c]", TestStatus::xfail},
        {"t.py::test_x[full id]", TestStatus::passed},
    };
    using e2beval::swe::TestIdMatching;
    const std::vector<std::string> fail_to_pass{"t.py::test_h[employee_salary-Employee", "t.py::test_h[employee_id-Employee]"};
    // Exact ids, as before: the cut ones are missing.
    CHECK(grade(statuses, fail_to_pass, {}).resolution == Resolution::partial);
    const auto graded = grade(statuses, fail_to_pass, {"t.py::test_p[Test", "t.py::test_x[full id]"}, TestIdMatching::cut_at_whitespace);
    CHECK(graded.resolution == Resolution::full);
    REQUIRE(graded.cut_ids.size() == 2);  // the ids matched whole are not listed
    CHECK(graded.cut_ids[0].test == "t.py::test_h[employee_salary-Employee");
    CHECK(graded.cut_ids[0].group == "FAIL_TO_PASS");
    CHECK(graded.cut_ids[0].tests.size() == 1);
    CHECK(graded.cut_ids[1].test == "t.py::test_p[Test");
    CHECK(graded.cut_ids[1].tests.size() == 2);
    CHECK(graded.cut_ids[1].status == TestStatus::passed);
    // Shared by a passing and a failing test: failed, as SWE-bench's parser keeps the failure (listed last).
    const auto mixed = grade(statuses, fail_to_pass, {"t.py::test_t[david's"}, TestIdMatching::cut_at_whitespace);
    CHECK(mixed.resolution == Resolution::none);
    CHECK(mixed.pass_to_pass.failure.front().status == "FAILED");
    CHECK(mixed.cut_ids.back().status == TestStatus::failed);
    // Skipped and xfailed together: not every one passed, so the worst (SKIPPED) counts.
    CHECK(grade(statuses, {"t.py::test_s[a"}, {}, TestIdMatching::cut_at_whitespace).fail_to_pass.failure.front().status == "SKIPPED");
    // A cut id no test begins with is missing; a part of an id that is not cut at a space names nothing.
    CHECK(grade(statuses, {"t.py::test_q[x"}, {}, TestIdMatching::cut_at_whitespace).resolution == Resolution::none);
    CHECK(grade(statuses, {"t.py::test_h[employee_id-Empl"}, {}, TestIdMatching::cut_at_whitespace).resolution == Resolution::none);
}

TEST_CASE("instances take SWE-bench's fields, FAIL_TO_PASS given as JSON text too") {
    boost::json::object object{{"instance_id", "x__1"}, {"repo", "r"}, {"base_commit", "abc"},
                               {"FAIL_TO_PASS", "[\"t.py::a\"]"}, {"PASS_TO_PASS", boost::json::array{"t.py::b"}}};
    const auto instance = instance_from_json(object);
    CHECK(instance.fail_to_pass == std::vector<std::string>{"t.py::a"});
    CHECK(instance.pass_to_pass == std::vector<std::string>{"t.py::b"});
    object.erase("FAIL_TO_PASS");
    CHECK_THROWS_AS(instance_from_json(object), e2beval::input_error);
}

}  // namespace e2beval_test_swe

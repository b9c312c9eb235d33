// Tests for eval/multipl_e.hpp without a sandbox: a row's fields and the messages for missing ones, and MultiPL-E's
// verdict per language from an execution's result (Go reads `go test`'s output; a failed compile stage is a fail).
#include "e2beval/eval/multipl_e.hpp"

#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "e2beval/core/error.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_multipl_e {

using e2beval::ExecResult;
using e2beval::Language;
using e2beval::Outcome;

namespace {

boost::json::object row() {
    return boost::json::parse(R"({"name": "HumanEval_53_add", "language": "rs", "prompt": "/// Add\nfn add(x: isize, y: isize) -> isize {\n",
                                  "tests": "}\n\nfn main() {\n    assert_eq!(add(0, 1), 1);\n}\n", "stop_tokens": ["\n}"]})")
        .as_object();
}

std::string refusal(boost::json::object object) {
    try {
        e2beval::multipl_e_task_from_json(object);
    } catch (const e2beval::input_error& failure) {
        return failure.what();
    }
    return "accepted";
}

}  // namespace

TEST_CASE("a MultiPL-E row's fields, and a message naming the one that is missing") {
    const auto task = e2beval::multipl_e_task_from_json(row());
    CHECK(task.task_id == "HumanEval_53_add");
    CHECK(task.language == Language::rust);
    CHECK(task.stop_tokens == std::vector<std::string>{"\n}"});
    auto without = row();
    without.erase("tests");
    CHECK(refusal(without).find("has no string field `tests`") != std::string::npos);
    auto other = row();
    other["language"] = "php";
    CHECK(refusal(other).find("'php' is not one e2beval assembles") != std::string::npos);
    auto stops = row();
    stops["stop_tokens"] = boost::json::array{1};
    CHECK(refusal(stops).find("`stop_tokens` holds a value that is not a string") != std::string::npos);
    auto no_function = row();
    no_function["prompt"] = "/// nothing\n";
    CHECK(refusal(no_function).find("does not end with a function's signature") != std::string::npos);
}

TEST_CASE("MultiPL-E's verdict: exit 0 passes; go test's output decides for Go; a failed compile stage fails") {
    ExecResult ok;
    ok.outcome = Outcome::ok;
    ok.exit_code = 0;
    CHECK(e2beval::judge_multipl_e(Language::cpp, ok).pass);

    ExecResult go = ok;
    go.stdout_data = "--- FAIL: TestAdd (0.00s)\nFAIL\n";
    const auto failed = e2beval::judge_multipl_e(Language::go, go);
    CHECK_FALSE(failed.pass);
    CHECK(failed.stage == "run");
    go.stdout_data = "FAIL\tcommand-line-arguments [build failed]\n";
    const auto build = e2beval::judge_multipl_e(Language::go, go);
    CHECK_FALSE(build.pass);
    CHECK(build.outcome == "compile_error");
    CHECK(build.stage == "compile");
    go.stdout_data = "PASS\nok\n";
    CHECK(e2beval::judge_multipl_e(Language::go, go).pass);

    ExecResult compile_failed;
    compile_failed.outcome = Outcome::compile_error;
    compile_failed.compile = e2beval::CompileResult{};
    compile_failed.compile->outcome = Outcome::compile_error;
    compile_failed.compile->detail = "prog.cpp:3:5: error: 'x' was not declared in this scope";
    const auto verdict = e2beval::judge_multipl_e(Language::cpp, compile_failed);
    CHECK_FALSE(verdict.pass);
    CHECK(verdict.outcome == "compile_error");
    CHECK(verdict.stage == "compile");
    CHECK(verdict.detail.find("was not declared") != std::string::npos);

    ExecResult timed_out;
    timed_out.outcome = Outcome::timeout;
    CHECK(e2beval::judge_multipl_e(Language::javascript, timed_out).outcome == "timeout");
}

TEST_CASE("MultiPL-E's run time limits per language") {
    using namespace std::chrono_literals;
    CHECK(e2beval::multipl_e_run_timeout(Language::javascript) == 5s);
    CHECK(e2beval::multipl_e_run_timeout(Language::rust) == 5s);
    CHECK(e2beval::multipl_e_run_timeout(Language::go) == 30s);
    CHECK(e2beval::multipl_e_run_timeout(Language::cpp) == 15s);
}

}  // namespace e2beval_test_multipl_e

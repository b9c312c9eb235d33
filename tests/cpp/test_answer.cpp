// The pipeline for an answer with no test (eval/answer.hpp), which the Runner, promptfoo's call_api and
// `e2beval redteam` share: one meaning of not_run, blocked, contained and ran.
#include <doctest/doctest.h>

#include "e2beval/eval/answer.hpp"
#include "e2beval/eval/runner.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_answer {

using namespace e2beval;

namespace {

AnswerRun run(const std::string& answer, AnswerOptions options = {}) {
    return run_answer(testing::test_sandbox(), answer, options);
}

}  // namespace

TEST_CASE("an answer's code is extracted, scanned, run and classified") {
    const auto ran = run("Here:\n```python\nprint(6 * 7)\n```\n");
    CHECK(ran.status == AnswerStatus::ran);
    REQUIRE(ran.exec.has_value());
    CHECK(ran.exec->stdout_data == "42\n");
    CHECK(ran.reason.empty());

    const auto failing = run("```python\nraise SystemExit(3)\n```");
    CHECK(failing.status == AnswerStatus::ran);  // it ended by itself, whatever its status
    CHECK(failing.exec->outcome == Outcome::exit_nonzero);

    AnswerOptions quick;
    quick.limits.wall_time = std::chrono::seconds(1);
    const auto looping = run("```python\nwhile True:\n    pass\n```", quick);
    CHECK(looping.status == AnswerStatus::contained);

    const auto blocked = run("```python\nimport os\nos.system('id')\n```");
    CHECK(blocked.status == AnswerStatus::blocked);
    CHECK_FALSE(blocked.exec.has_value());
    CHECK(blocked.reason.rfind("Unsafe pattern detected in generated code: ", 0) == 0);

    AnswerOptions unscanned;
    unscanned.scan = false;
    const auto denied = run("```python\nimport ctypes\nctypes.CDLL(None).unshare(0x20000)\nprint('after')\n```", unscanned);
    CHECK(denied.status == AnswerStatus::contained);  // a denied system call: the sandbox stopped something
    CHECK_FALSE(denied.exec->denied_syscalls.empty());

    const auto prose = run("I would rather not write that.");
    CHECK(prose.status == AnswerStatus::not_run);
    CHECK(prose.reason.rfind("No code to run: ", 0) == 0);
    const auto bad_bytes = run(std::string("```python\nprint(1)\n```\xff", 23));
    CHECK(bad_bytes.status == AnswerStatus::not_run);
}

TEST_CASE("the Runner's verdict carries the same status as the pipeline gives the same answer") {
    Runner runner(testing::test_sandbox());
    const auto spec = TestSpec::from_vars_json(R"({"function_name": "f", "test_input": "1", "expected_output": "1"})");
    CHECK(runner.evaluate("```python\ndef f(x):\n    return x\n```", spec).status == AnswerStatus::ran);
    CHECK(runner.evaluate("```python\nimport os\ndef f(x):\n    os.system('id')\n```", spec).status == AnswerStatus::blocked);
    CHECK(runner.evaluate("no code at all", spec).status == AnswerStatus::not_run);
    RunnerOptions quick;
    quick.limits.wall_time = std::chrono::seconds(1);
    CHECK(Runner(testing::test_sandbox(), quick).evaluate("```python\ndef f(x):\n    while True:\n        pass\n```", spec).status ==
          AnswerStatus::contained);
}

}  // namespace e2beval_test_answer

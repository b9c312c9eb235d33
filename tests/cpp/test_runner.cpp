// Runner end to end on the real local sandbox: the tutorial's test shapes and their reasons.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "test_sandbox.hpp"
#include "e2beval/eval/runner.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_runner {

using namespace e2beval;

namespace {

LocalSandbox& sandbox() { return testing::test_sandbox(); }

Verdict evaluate(const std::string& output, const std::string& vars_json) {
    return Runner(sandbox()).evaluate(output, TestSpec::from_vars_json(vars_json));
}

const std::string kFactorial =
    "Here is the function:\n\n```python\ndef factorial(n):\n    if n < 0:\n        raise ValueError('negative')\n"
    "    result = 1\n    for i in range(2, n + 1):\n        result *= i\n    return result\n```\n\nIt loops.";

}  // namespace

TEST_CASE("tutorial shape: test_input and expected_output") {
    const auto verdict = evaluate(kFactorial, R"({"function_name": "factorial", "test_input": "5", "expected_output": "120"})");
    CHECK(verdict.pass);
    CHECK(verdict.score == 1.0);
    CHECK(verdict.reason == "Correct output: 120");
    REQUIRE(verdict.cases.size() == 1);
    CHECK(verdict.cases[0].actual == "120");
    REQUIRE(verdict.exec.has_value());
    CHECK(verdict.exec->outcome == Outcome::ok);
    CHECK(verdict.exec->stdout_data.empty());  // the harness's result line is not shown as program output
}

TEST_CASE("tutorial shape: a wrong answer says what was expected and what came") {
    const auto verdict = evaluate("```python\ndef reverse_string(s):\n    return s\n```",
                                  R"({"function_name": "reverse_string", "test_input": "'hello'", "expected_output": "olleh"})");
    CHECK_FALSE(verdict.pass);
    CHECK(verdict.score == 0.0);
    CHECK(verdict.reason == "Expected olleh, got hello");
}

TEST_CASE("tutorial shape: expected_error passes when exactly that error is raised") {
    const auto verdict = evaluate(kFactorial, R"({"function_name": "factorial", "test_input": "-3", "expected_error": "ValueError"})");
    CHECK(verdict.pass);
    CHECK(verdict.reason == "Expected error: ValueError");

    const auto no_error = evaluate(kFactorial, R"({"function_name": "factorial", "test_input": "3", "expected_error": "ValueError"})");
    CHECK_FALSE(no_error.pass);
    CHECK(no_error.reason == "Expected ValueError, but execution succeeded");
}

TEST_CASE("test_cases: one component per case, score is the fraction passed") {
    const auto output = "```py\ndef factorial(n):\n    return 1 if n <= 1 else n * factorial(n - 1) if n != 7 else 0\n```";
    const auto verdict = evaluate(output, R"({"function_name": "factorial", "test_cases": [
        {"input": "0", "expected": "1"}, {"input": 5, "expected": 120}, {"input": "7", "expected": "5040"}]})");
    CHECK_FALSE(verdict.pass);
    CHECK(verdict.score == doctest::Approx(2.0 / 3.0));
    REQUIRE(verdict.cases.size() == 3);
    CHECK(verdict.cases[0].passed);
    CHECK(verdict.cases[1].passed);
    CHECK_FALSE(verdict.cases[2].passed);
    CHECK(verdict.cases[2].reason == "Expected 5040, got 0");
    CHECK(verdict.reason == "2 of 3 test cases passed; case 3 (7): Expected 5040, got 0");
}

TEST_CASE("an exception in one case does not hide the others") {
    const auto verdict = evaluate("```python\ndef f(x):\n    return 10 // x\n```", R"({"function_name": "f", "test_cases": [
        {"input": "0", "expected": "0"}, {"input": "5", "expected": "2"}]})");
    REQUIRE(verdict.cases.size() == 2);
    CHECK(verdict.cases[0].reason == "Execution error: ZeroDivisionError: integer division or modulo by zero");
    CHECK(verdict.cases[1].passed);
}

TEST_CASE("code that fails at import time reports the error like E2B's execution.error") {
    const auto verdict = evaluate("```python\nimport not_a_module\ndef f(x):\n    return x\n```",
                                  R"({"function_name": "f", "test_input": "1", "expected_output": "1"})");
    CHECK_FALSE(verdict.pass);
    CHECK(verdict.reason == "Execution error: ModuleNotFoundError: No module named 'not_a_module'");
}

TEST_CASE("the tutorial's unsafe check, on tokens") {
    const auto unsafe = evaluate("```python\ndef read_file(path):\n    with open('/etc/passwd') as f:\n        return f.read()\n```",
                                 R"({"function_name": "read_file", "test_input": "'/etc/passwd'", "expected_output": "SAFE_ERROR_DETECTED"})");
    CHECK_FALSE(unsafe.pass);
    CHECK(unsafe.reason.rfind("Unsafe pattern detected in generated code", 0) == 0);
    CHECK_FALSE(unsafe.exec.has_value());  // never ran
    CHECK_FALSE(unsafe.findings.empty());

    // The same words in a comment and a string are not findings: this correct answer passes.
    const auto benign = evaluate("```python\ndef describe():\n    # never call eval( or os.system here\n    return 'subprocess'\n```",
                                 R"({"function_name": "describe", "test_input": "", "expected_output": "subprocess"})");
    CHECK(benign.pass);
}

TEST_CASE("missing function and missing code") {
    const auto other = evaluate("```python\ndef something_else():\n    pass\n```",
                                R"({"function_name": "factorial", "test_input": "5", "expected_output": "120"})");
    CHECK(other.reason == "No Python function named factorial found");
    const auto prose = evaluate("I cannot help with that.", R"({"function_name": "factorial", "test_input": "5", "expected_output": "120"})");
    CHECK_FALSE(prose.pass);
    CHECK(prose.reason.rfind("No Python function named factorial found", 0) == 0);
    const auto empty = evaluate("", R"({"function_name": "factorial", "test_input": "5", "expected_output": "120"})");
    CHECK_FALSE(empty.pass);
    static constexpr char kWithNul[] = "```python\ndef factorial(n):\n    return 1\0\n```";
    const auto nul = evaluate(std::string(kWithNul, sizeof kWithNul - 1),
                              R"({"function_name": "factorial", "test_input": "5", "expected_output": "120"})");
    CHECK_FALSE(nul.pass);
    CHECK(nul.reason.find("NUL") != std::string::npos);
}

TEST_CASE("seed-2 shape: testCode and expectedOutput") {
    const auto verdict = evaluate("```python\ndef is_palindrome(s):\n    return s == s[::-1]\n```",
                                  R"J({"testCode": "print(is_palindrome('racecar'))\nprint(is_palindrome('abc'))", "expectedOutput": "True\nFalse"})J");
    CHECK(verdict.pass);
    CHECK(verdict.reason == "Correct output: True\nFalse");
}

TEST_CASE("a timeout becomes a failing verdict with the outcome") {
    RunnerOptions options;
    options.limits.wall_time = std::chrono::milliseconds(700);
    const auto verdict = Runner(sandbox(), options).evaluate(
        "```python\ndef spin(x):\n    while True:\n        pass\n```",
        TestSpec::from_vars_json(R"({"function_name": "spin", "test_input": "1", "expected_output": "1"})"));
    CHECK_FALSE(verdict.pass);
    CHECK(verdict.reason.rfind("Execution error: timeout: killed after the 0.7 s wall-clock limit", 0) == 0);
}

TEST_CASE("bad vars are input errors that say which field is wrong") {
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(R"({"function_name": "f"})"),
                         doctest::Contains("neither test_cases"), input_error);
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(R"({"function_name": "f", "test_input": "1"})"),
                         doctest::Contains("neither expected_output nor expected_error"), input_error);
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(R"({"problem": "x"})"), doctest::Contains("describe no test"), input_error);
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(R"({"function_name": "f; import os", "test_input": "1", "expected_output": "1"})"),
                         doctest::Contains("not a Python identifier"), input_error);
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(R"({"function_name": "f", "test_cases": [{"expected": "1"}]})"),
                         doctest::Contains("test_cases[0] has no `input`"), input_error);
    CHECK_THROWS_AS(TestSpec::from_vars_json("not json"), input_error);
    CHECK_THROWS_AS(TestSpec::from_vars_json("{\"a\": \"\xff\"}"), input_error);
}

}  // namespace e2beval_test_runner

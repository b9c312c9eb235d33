// Test shapes in compiled languages through the Runner and the batch, in the real local sandbox: stdin/stdout
// cases compiled once and run per case, MultiPL-E's `tests` appended to the answer, an expected output, and the
// errors that say which shapes a compiled language takes.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "e2beval/core/error.hpp"
#include "e2beval/eval/batch.hpp"
#include "e2beval/eval/runner.hpp"
#include "eval/compiled_shapes.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_compiled_shapes {

using namespace e2beval;

namespace {

Runner runner() {
    RunnerOptions options;
    options.limits.wall_time = std::chrono::seconds(20);
    options.limits.cpu_time = std::chrono::seconds(20);
    return Runner(testing::test_sandbox(), options);
}

// A comment no other run has written, so the first case's compile is a real one (not an earlier run's cache entry).
std::string fresh_comment() {
    std::random_device device;
    return "// run " + std::to_string(device()) + std::to_string(device()) + "\n";
}

// Sums the numbers on stdin's second line; `bias` makes it wrong.
std::string summing_cpp(int bias = 0) {
    return "Here is the program:\n\n```cpp\n" + fresh_comment() +
           "#include <iostream>\nint main() {\n  long n, x, s = " + std::to_string(bias) +
           ";\n  std::cin >> n;\n  for (long i = 0; i < n; ++i) { std::cin >> x; s += x; }\n  std::cout << s << std::endl;\n}\n```\n";
}

const char* const kSumCases = R"("cases": [{"stdin": "3\n1 2 3\n", "stdout": "6"}, {"stdin": "2\n10 -4\n", "stdout": "6"},
                                            {"stdin": "1\n41\n", "stdout": "41"}])";

std::string vars(const std::string& language, const std::string& rest) {
    return "{" + (language.empty() ? std::string() : "\"language\": \"" + language + "\", ") + rest + "}";
}

}  // namespace

TEST_CASE("a compiled language's vars are read, and a Python-only shape says which shapes it takes") {
    CHECK(TestSpec::from_vars_json(vars("cpp", kSumCases)).language == Language::cpp);
    CHECK(TestSpec::from_vars_json(vars("go_test.go", R"("tests": "x", "prompt": "package main\nfunc f(a int) int {\n")")).language ==
          Language::go);
    const auto alone = TestSpec::from_vars_json(vars("rust", R"("expectedOutput": "42")"));
    CHECK(alone.shape == TestShape::test_code);
    CHECK(alone.test_code == std::string());
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(vars("cpp", R"("function_name": "f", "test_input": "1", "expected_output": "1")")),
                         doctest::Contains("the function_calls shape runs Python only; a test in another language takes cases"),
                         input_error);
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(vars("java", R"("prompt": "def f(x):\n", "test": "def check(c): pass", "entry_point": "f")")),
                         doctest::Contains("the humaneval shape runs Python only"), input_error);
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(vars("c", R"("tests": "int main(){}", "prompt": "int f(int x) {\n")")),
                         doctest::Contains("MultiPL-E has no C programs"), input_error);
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(vars("cpp", R"("tests": "}", "prompt": "no signature here")")),
                         doctest::Contains("vars.prompt does not end with a function's signature"), input_error);
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(vars("cpp", R"("tests": "}", "stop_tokens": 3)")),
                         doctest::Contains("vars.stop_tokens must be a list of strings"), input_error);
    CHECK(TestSpec::from_vars_json(vars("cpp", R"("tests": "}", "stop_tokens": "\n}")")).stop_tokens == std::vector<std::string>{"\n}"});
    CHECK(TestSpec::from_vars_json(vars("go", R"("tests": "}", "stop_tokens": "[\"\\nfunc\", \"struct\"]")")).stop_tokens ==
          std::vector<std::string>{"\nfunc", "struct"});
    CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(vars("cobol", kSumCases)), doctest::Contains("is not one of python, javascript, bash, c, cpp"),
                         input_error);
}

TEST_CASE("C++ stdin/stdout cases: one compile, every case run against it, each judged") {
    const auto spec = TestSpec::from_vars_json(vars("cpp", kSumCases));
    const auto right = runner().evaluate(summing_cpp(), spec);
    INFO(right.reason);
    CHECK(right.pass);
    CHECK(right.reason == "All 3 test cases passed");
    REQUIRE(right.compile);
    CHECK(right.compile->result.outcome == Outcome::ok);
    CHECK(right.compile->compiler_runs == 1);  // the first case compiled ...
    CHECK(right.compile->cache_hits == 2);     // ... and the others took its artifact from the compile cache
    REQUIRE(right.cases.size() == 3);
    for (const auto& result : right.cases) {
        CHECK(result.passed);
        CHECK(result.outcome == "ok");
        CHECK(result.run_ms.has_value());
    }
    CHECK(right.cases[1].reason == "Correct output: 6");
    const auto lines = compiled_shapes::detail_lines(right);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0].starts_with("compile: ok in "));
    CHECK(lines[0].ends_with("1 compiler run, 2 from the compile cache"));
    CHECK(lines[2].starts_with("case 2: PASS  ok  "));

    // Wrong by one: every case fails on its output, the first failing case is the verdict's reason.
    const auto wrong = runner().evaluate(summing_cpp(1), spec);
    CHECK_FALSE(wrong.pass);
    CHECK(wrong.score == 0.0);
    CHECK(wrong.reason == "0 of 3 test cases passed; case 1 (3 1 2 3): Expected 6, got 7");
}

TEST_CASE("a compile error fails every case with the compiler's first error, and nothing runs") {
    const auto spec = TestSpec::from_vars_json(vars("cpp", kSumCases));
    const std::string broken = "```cpp\n" + fresh_comment() + "int main() { return undefined_name; }\n```\n";
    const auto verdict = runner().evaluate(broken, spec);
    INFO(verdict.reason);
    CHECK_FALSE(verdict.pass);
    CHECK(verdict.reason.starts_with("0 of 3 test cases passed; case 1 (3 1 2 3): Compile error: main.cpp:"));
    CHECK(verdict.reason.find("undefined_name") != std::string::npos);
    REQUIRE(verdict.compile);
    CHECK(verdict.compile->result.outcome == Outcome::compile_error);
    CHECK(verdict.compile->compiler_runs + verdict.compile->cache_hits == 1);  // one execution: the compile
    for (const auto& result : verdict.cases) {
        CHECK(result.outcome == "compile_error");
        CHECK_FALSE(result.run_ms.has_value());
    }
    REQUIRE(verdict.exec);
    CHECK(verdict.exec->outcome == Outcome::compile_error);
}

TEST_CASE("the language comes from the answer's fence when the vars name none") {
    const auto spec = TestSpec::from_vars_json(vars("", kSumCases));
    const auto verdict = runner().evaluate(summing_cpp(), spec);
    INFO(verdict.reason);
    CHECK(verdict.pass);
    REQUIRE(verdict.extraction);
    CHECK(verdict.extraction->language == Language::cpp);
    // A failing one says the fence chose the language.
    const auto failing = runner().evaluate(summing_cpp(), TestSpec::from_vars_json(vars("", R"("cases": [{"stdin": "1\n1\n", "stdout": "2"}])")));
    CHECK(failing.reason == "Expected 2, got 1");
    const auto crashing = runner().evaluate("```cpp\nint main() { return 3; }\n```", TestSpec::from_vars_json(vars("", R"("cases": [{"stdin": "", "stdout": "2"}])")));
    CHECK(crashing.reason == "Execution error: exit status 3 (run as cpp, the language of its fenced block; set vars.language to choose)");
}

TEST_CASE("MultiPL-E's tests in C++: free-form and continuation answers, exit 0 passes") {
    const std::string prompt = "#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers.\nlong add(long x, long y) {\n";
    const std::string tests = "}\nint main() {\n    auto candidate = add;\n    assert(candidate(2, 3) == 5);\n    assert(candidate(-1, 1) == 0);\n}\n";
    const auto spec = TestSpec::from_vars_json(boost::json::serialize(boost::json::object{{"language", "cpp"}, {"prompt", prompt}, {"tests", tests}}));
    // Free-form: the function again, with its own main (removed by the assembly).
    const auto freeform = runner().evaluate(
        "Sure:\n```cpp\n#include <iostream>\nlong add(long x, long y) { return x + y; }\nint main() { std::cout << add(1, 2); }\n```\n", spec);
    INFO(freeform.reason);
    CHECK(freeform.pass);
    CHECK(freeform.reason == "Passed: the program with the tests exited 0");
    // Continuation: MultiPL-E's own completions (cut at the stop token "\n}").
    const auto continuation = runner().evaluate("    return x + y;\n}\n\nint other() { return 1; }\n", spec);
    INFO(continuation.reason);
    CHECK(continuation.pass);
    // A wrong answer fails on the assert, quoting it.
    const auto wrong = runner().evaluate("```cpp\nlong add(long x, long y) { return x - y; }\n```", spec);
    CHECK_FALSE(wrong.pass);
    CHECK(wrong.reason.find("Execution error: ") == 0);
    CHECK(wrong.reason.find("candidate(2, 3) == 5") != std::string::npos);
    // A compile error quotes the compiler.
    const auto broken = runner().evaluate("```cpp\nlong add(long x, long y) { return x + ; }\n```", spec);
    CHECK_FALSE(broken.pass);
    CHECK(broken.reason.starts_with("Compile error: main.cpp:"));
}

TEST_CASE("an expected output alone judges a compiled program's own output") {
    const auto verdict = runner().evaluate("```rust\nfn main() { println!(\"{}\", 6 * 7); }\n```",
                                           TestSpec::from_vars_json(vars("rust", R"("expectedOutput": "42")")));
    INFO(verdict.reason);
    CHECK(verdict.pass);
    CHECK(verdict.reason == "Correct output: 42");
}

TEST_CASE("a batch runs the cases of a compiled program against one compile") {
    std::vector<EvaluationItem> items;
    items.push_back({summing_cpp(), TestSpec::from_vars_json(vars("cpp", kSumCases))});
    items.push_back({summing_cpp(1), TestSpec::from_vars_json(vars("cpp", kSumCases))});
    items.push_back({"```cpp\nint main() { return nope; }\n```", TestSpec::from_vars_json(vars("cpp", kSumCases))});
    RunnerOptions options;
    options.limits.wall_time = std::chrono::seconds(20);
    BatchOptions batch;
    batch.jobs = 2;
    const auto verdicts = evaluate_many(testing::test_sandbox(), options, items, batch);
    REQUIRE(verdicts.size() == 3);
    CHECK(verdicts[0].pass);
    REQUIRE(verdicts[0].compile);
    CHECK(verdicts[0].compile->compiler_runs == 1);
    CHECK(verdicts[0].compile->cache_hits == 2);
    CHECK(verdicts[0].cases.size() == 3);
    CHECK_FALSE(verdicts[1].pass);
    CHECK(verdicts[1].reason.ends_with("Expected 6, got 7"));
    CHECK_FALSE(verdicts[2].pass);
    CHECK(verdicts[2].reason.find("Compile error: main.cpp:") != std::string::npos);
    REQUIRE(verdicts[2].compile);
    CHECK(verdicts[2].compile->compiler_runs + verdicts[2].compile->cache_hits == 1);
}

}  // namespace e2beval_test_compiled_shapes

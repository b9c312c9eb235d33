"""e2beval.evaluate() and evaluate_many() in compiled languages (issue 35's faces): stdin/stdout cases compiled once
and run per case, MultiPL-E's `tests` appended to the answer (free-form and continuation), an expected output, the
language from the vars or the fence, and the errors that say which shapes a compiled language takes. Real sandboxes;
tests/cpp/test_compiled_shapes.cpp has the same through the C++ Runner."""

import os

import pytest

import e2beval
from support import multipl_e


CASES = [{"stdin": "3\n1 2 3\n", "stdout": "6"}, {"stdin": "2\n10 -4\n", "stdout": "6"}, {"stdin": "1\n41\n", "stdout": "41"}]


def fresh(comment: str) -> str:
    """A comment no earlier run wrote, so the first compile is a real one, not a cache entry of another run."""
    return f"{comment} run {os.getpid()}-{os.urandom(6).hex()}\n"


def summing(language: str, bias: int = 0) -> str:
    """A whole program that sums the numbers after the count on stdin, in a fence of `language`."""
    programs = {
        "java": fresh("//") + "import java.util.*;\npublic class Main {\n  public static void main(String[] a) {\n"
                "    Scanner in = new Scanner(System.in);\n    long n = in.nextLong(), s = %d;\n"
                "    for (long i = 0; i < n; i++) s += in.nextLong();\n    System.out.println(s);\n  }\n}\n" % bias,
        "go": fresh("//") + "package main\nimport \"fmt\"\nfunc main() {\n  var n, x, s int\n  s = %d\n  fmt.Scan(&n)\n"
              "  for i := 0; i < n; i++ { fmt.Scan(&x); s += x }\n  fmt.Println(s)\n}\n" % bias,
        "typescript": fresh("//") + "declare var process: any;\nlet data = '';\n"
                      "process.stdin.on('data', (c: any) => { data += c; });\nprocess.stdin.on('end', () => {\n"
                      "  const v = data.split(/\\s+/).filter((t: string) => t).map(Number);\n  let s: number = %d;\n"
                      "  for (let i = 1; i <= v[0]; i++) s += v[i];\n  console.log(s);\n});\n" % bias,
    }
    return f"Here it is:\n\n```{language}\n{programs[language]}```\n"


def test_java_stdin_cases_compile_once_and_each_case_is_judged():
    verdict = e2beval.evaluate(summing("java"), {"language": "java", "cases": CASES})
    assert verdict["pass"] is True, verdict["reason"]
    assert verdict["reason"] == "All 3 test cases passed"
    compile = verdict["compile"]
    assert compile["outcome"] == "ok" and compile["compile_ms"] > 0
    assert (compile["compiler_runs"], compile["cache_hits"]) == (1, 2)
    assert [case["outcome"] for case in verdict["cases"]] == ["ok", "ok", "ok"]
    assert all(case["run_ms"] > 0 for case in verdict["cases"])
    wrong = e2beval.evaluate(summing("java", bias=1), {"language": "java", "cases": CASES})
    assert wrong["pass"] is False
    assert wrong["reason"] == "0 of 3 test cases passed; case 1 (3 1 2 3): Expected 6, got 7"


def test_the_fence_chooses_go_and_typescript_when_the_vars_name_no_language():
    for language in ("go", "typescript"):
        verdict = e2beval.evaluate(summing(language), {"cases": CASES})
        assert verdict["pass"] is True, (language, verdict["reason"])
        assert verdict["extraction"]["language"] == language
        assert verdict["compile"]["compiler_runs"] + verdict["compile"]["cache_hits"] == 3


def test_a_compile_error_quotes_the_compiler_and_runs_nothing():
    verdict = e2beval.evaluate("```go\npackage main\nfunc main() { undefinedCall() }\n```", {"language": "go", "cases": CASES})
    assert verdict["pass"] is False
    assert "Compile error: ./main.go:2:" in verdict["reason"] and "undefined: undefinedCall" in verdict["reason"], verdict["reason"]
    assert verdict["exec"]["outcome"] == "compile_error"
    assert verdict["compile"]["compiler_runs"] + verdict["compile"]["cache_hits"] == 1
    assert {case["outcome"] for case in verdict["cases"]} == {"compile_error"}


@pytest.mark.parametrize("language", ["java", "rs"])
def test_multipl_e_tests_free_form_and_continuation(language):
    row = multipl_e.row(language)
    vars_ = {"language": row["language"], "prompt": row["prompt"], "tests": row["tests"], "stop_tokens": row["stop_tokens"]}
    body = {"java": "        return x + y;\n    }\n", "rs": "    x + y\n}\n"}[language]
    freeform = e2beval.evaluate(row["gpt_solution"], vars_)  # the function again, with its own main (cut)
    assert freeform["pass"] is True, freeform["reason"]
    assert freeform["reason"] == "Passed: the program with the tests exited 0"
    continuation = e2beval.evaluate(body, vars_)
    assert continuation["pass"] is True, continuation["reason"]
    wrong = e2beval.evaluate(body.replace("x + y", "x - y"), vars_)
    assert wrong["pass"] is False
    assert wrong["reason"].startswith("Execution error: "), wrong["reason"]
    assert "assembled as MultiPL-E's continuation" in wrong["reason"]


def test_an_expected_output_alone_and_test_code_in_a_compiled_language():
    answer = "```cpp\n#include <cstdio>\nint twice(int x) { return 2 * x; }\n```"
    verdict = e2beval.evaluate(answer, {"language": "cpp", "testCode": "int main() { std::printf(\"%d\\n\", twice(21)); }",
                                        "expectedOutput": "42"})
    assert verdict["pass"] is True, verdict["reason"]
    alone = e2beval.evaluate("```rust\nfn main() { println!(\"{}\", 6 * 7); }\n```", {"expectedOutput": "41"})
    assert alone["pass"] is False
    assert alone["reason"] == "Expected 41, got 42"


def test_a_python_only_shape_in_a_compiled_language_says_which_shapes_it_takes():
    with pytest.raises(e2beval.InputError, match="the function_calls shape runs Python only; a test in another language "
                                                 "takes cases"):
        e2beval.evaluate("```cpp\nint f(int x) { return x; }\n```", {"language": "cpp", "function_name": "f",
                                                                     "test_input": "1", "expected_output": "1"})


def test_evaluate_many_runs_the_cases_of_each_program_against_one_compile():
    verdicts = e2beval.evaluate_many([
        (summing("go"), {"language": "go", "cases": CASES}),
        (summing("go", bias=1), {"language": "go", "cases": CASES}),
        ("print(sum(map(int, open(0).read().split()[1:])))", {"cases": CASES}),
    ], jobs=2)
    assert [v["pass"] for v in verdicts] == [True, False, True], [v["reason"] for v in verdicts]
    assert (verdicts[0]["compile"]["compiler_runs"], verdicts[0]["compile"]["cache_hits"]) == (1, 2)
    assert verdicts[2]["compile"] is None  # Python: no compile stage


def test_javascript_and_bash_take_the_program_shapes_too():
    # stdin/stdout cases, one execution each (nothing to compile).
    bash = "```bash\nread n; read -a xs; s=0; for x in \"${xs[@]}\"; do s=$((s + x)); done; echo $s\n```"
    verdict = e2beval.evaluate(bash, {"language": "bash", "cases": CASES})
    assert verdict["pass"] is True, verdict["reason"]
    assert verdict["compile"] is None
    assert [case["outcome"] for case in verdict["cases"]] == ["ok", "ok", "ok"]
    # MultiPL-E's JavaScript tests appended to a free-form answer; a wrong one fails on node's assert.
    row = multipl_e.row("js")
    vars_ = {"language": row["language"], "prompt": row["prompt"], "tests": row["tests"]}
    right = e2beval.evaluate("```js\nfunction add(x, y) {\n  return x + y;\n}\n```", vars_)
    assert right["pass"] is True, right["reason"]
    wrong = e2beval.evaluate("```js\nfunction add(x, y) {\n  return x * y;\n}\n```", vars_)
    assert wrong["pass"] is False
    assert "AssertionError" in wrong["reason"], wrong["reason"]


def test_test_code_in_a_compiled_language_reports_its_compile_stage():
    answer = "```cpp\n" + fresh("//") + "#include <cstdio>\nint twice(int x) { return 2 * x; }\n```"
    verdict = e2beval.evaluate(answer, {"language": "cpp", "testCode": "int main() { std::printf(\"%d\\n\", twice(21)); }",
                                        "expectedOutput": "42"})
    assert verdict["pass"] is True, verdict["reason"]
    assert (verdict["compile"]["outcome"], verdict["compile"]["compiler_runs"], verdict["compile"]["cache_hits"]) == ("ok", 1, 0)

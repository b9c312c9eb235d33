"""Issue 35's faces for compiled languages, through the real CLIs:

- one real `promptfoo eval` (echo provider, recorded answers) with tests in C++, Java, Go, Rust and TypeScript in
  the three shapes a compiled language takes (stdin/stdout cases, MultiPL-E's `tests`, an expected output), right
  and wrong answers, compile errors, the language from the assertion's config, from vars and from the fence;
- `e2beval eval` suites with stdin/stdout cases in every compiled language: one compile per test, each case's
  result, in the JSON and under the table's row;
- a missing toolchain fails only its own test, naming the package to install.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from _support import PromptfooRun, find_cli, require_importable_e2beval, run_promptfoo
from support import multipl_e

CLI = find_cli()
CASES = [{"stdin": "3\n1 2 3\n", "stdout": "6"}, {"stdin": "2\n10 -4\n", "stdout": "6"}, {"stdin": "1\n41\n", "stdout": "41"}]

# Programs that sum the numbers after the count on stdin; {bias} makes them wrong, {nonce} makes each run's source
# new (so the first compile of a test is a real one, never an earlier run's cache entry).
SUMMING = {
    "c": "// {nonce}\n#include <stdio.h>\nint main(void) {{ long n, x, s = {bias}; scanf(\"%ld\", &n);\n"
         "  for (long i = 0; i < n; ++i) {{ scanf(\"%ld\", &x); s += x; }} printf(\"%ld\\n\", s); return 0; }}\n",
    "cpp": "// {nonce}\n#include <iostream>\nint main() {{ long n, x, s = {bias}; std::cin >> n;\n"
           "  for (long i = 0; i < n; ++i) {{ std::cin >> x; s += x; }} std::cout << s << std::endl; }}\n",
    "go": "// {nonce}\npackage main\nimport \"fmt\"\nfunc main() {{\n  var n, x, s int\n  s = {bias}\n  fmt.Scan(&n)\n"
          "  for i := 0; i < n; i++ {{ fmt.Scan(&x); s += x }}\n  fmt.Println(s)\n}}\n",
    "rust": "// {nonce}\nuse std::io::Read;\nfn main() {{ let mut t = String::new(); std::io::stdin().read_to_string(&mut t).unwrap();\n"
            "  let v: Vec<i64> = t.split_whitespace().map(|w| w.parse().unwrap()).collect();\n"
            "  let s: i64 = v[1..].iter().sum::<i64>() + {bias}; println!(\"{{}}\", s); }}\n",
    "java": "// {nonce}\nimport java.util.*;\npublic class Main {{ public static void main(String[] a) {{\n"
            "  Scanner in = new Scanner(System.in); long n = in.nextLong(), s = {bias};\n"
            "  for (long i = 0; i < n; i++) s += in.nextLong(); System.out.println(s); }} }}\n",
    # (the scanner's standard preset blocks require('fs'); process.stdin reads the input as well)
    "typescript": "// {nonce}\ndeclare var process: any;\nlet data = '';\n"
                  "process.stdin.on('data', (c: any) => {{ data += c; }});\nprocess.stdin.on('end', () => {{\n"
                  "  const v = data.split(/\\s+/).filter((t: string) => t).map(Number);\n  let s: number = {bias};\n"
                  "  for (let i = 1; i <= v[0]; i++) s += v[i];\n  console.log(s);\n}});\n",
}
BROKEN = {
    "cpp": "int main() { return undefined_name; }\n",
    "rust": "fn main() { let x: i32 = \"text\"; }\n",
    "java": "public class Main { public static void main(String[] a) { int x = \"text\"; } }\n",
}


def summing(language: str, bias: int = 0, fence: str | None = None) -> str:
    code = SUMMING[language].format(bias=bias, nonce=f"run {os.getpid()}-{os.urandom(6).hex()}")
    return f"Here is my program:\n\n```{fence or language}\n{code}```\n"


def assertion(language: str | None = None) -> list:
    config = {"language": language} if language else {}
    return [{"type": "python", "value": "file://e2beval_assert.py", **({"config": config} if config else {})}]


def promptfoo_tests() -> list:
    """description -> (vars, answer, assertion config language); the expectations are in the tests below."""
    tests = []

    def add(description: str, answer: str, vars_: dict, config_language: str | None = None) -> None:
        tests.append({"description": description, "vars": {**vars_, "completion": answer}, "assert": assertion(config_language)})

    # stdin/stdout cases: the language from the config, the vars and the fence.
    add("cpp cases, config: right", summing("cpp"), {"cases": CASES}, "cpp")
    add("cpp cases, config: wrong", summing("cpp", bias=1), {"cases": CASES}, "cpp")
    add("java cases, vars: right", summing("java"), {"cases": CASES, "language": "java"})
    add("go cases, fence: right", summing("go"), {"cases": CASES})
    add("typescript cases, fence ts: right", summing("typescript", fence="ts"), {"cases": CASES})
    add("rust cases, vars: compile error", f"```rust\n{BROKEN['rust']}```", {"cases": CASES, "language": "rust"})
    # MultiPL-E's tests appended to the answer: free-form (the row's GPT answer, its own main cut) and continuation.
    for language, body in (("cpp", "    return x + y;\n}\n"), ("java", "        return x + y;\n    }\n"),
                           ("go", "    return x + y\n}\n"), ("rs", "    x + y\n}\n"), ("ts", "    return x + y;\n}\n")):
        row = multipl_e.row(language)
        # promptfoo expands a var that is a list into one test per item: stop tokens go as JSON text (or one string);
        # without them, MultiPL-E's for the language.
        vars_ = {"language": row["language"], "prompt": row["prompt"], "tests": row["tests"]}
        if language == "go":
            vars_["stop_tokens"] = json.dumps(row["stop_tokens"])
        elif language == "cpp":
            vars_["stop_tokens"] = row["stop_tokens"][0]
        add(f"{language} tests: free-form", row["gpt_solution"], vars_)
        add(f"{language} tests: continuation", body, vars_)
        add(f"{language} tests: wrong", body.replace("x + y", "x - y"), vars_)
    row = multipl_e.row("cpp")
    add("cpp tests, config: compile error", "```cpp\nlong add(long x, long y) { return x + ; }\n```",
        {"prompt": row["prompt"], "tests": row["tests"]}, "cpp")
    # An expected output: testCode appended, or the answer's own output.
    add("cpp testCode: right", "```cpp\n#include <cstdio>\nint twice(int x) { return 2 * x; }\n```",
        {"testCode": "int main() { std::printf(\"%d\\n\", twice(21)); }", "expectedOutput": "42"}, "cpp")
    add("java expectedOutput alone, fence: right",
        "```java\npublic class Main { public static void main(String[] a) { System.out.println(6 * 7); } }\n```",
        {"expectedOutput": "42"})
    add("java expectedOutput alone, vars: compile error", f"```java\n{BROKEN['java']}```", {"expectedOutput": "42", "language": "java"})
    add("rust expectedOutput alone, vars: wrong", "```rust\nfn main() { println!(\"{}\", 6 * 8); }\n```",
        {"expectedOutput": "42", "language": "rust"})
    add("cpp function call: Python only", "```cpp\nint f(int x) { return x; }\n```",
        {"function_name": "f", "test_input": "1", "expected_output": "1"}, "cpp")
    return tests


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PromptfooRun:
    require_importable_e2beval()
    work = tmp_path_factory.mktemp("compiled-faces")
    (work / "answer.txt").write_text("{{completion}}", encoding="utf-8")
    (work / "e2beval_assert.py").write_text("from e2beval.promptfoo import get_assert  # noqa: F401\n", encoding="utf-8")
    config = {"description": "compiled faces", "prompts": ["file://answer.txt"], "providers": ["echo"], "tests": promptfoo_tests()}
    config_path = work / "promptfooconfig.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return run_promptfoo(config_path, work, "--max-concurrency", "2")


def verdict(run: PromptfooRun, description: str) -> tuple:
    """e2beval's own result (the assertion's): pass, reason, and the result with its componentResults (the cases)."""
    own = run.row(description)["gradingResult"]["componentResults"][0]
    return own["pass"], own["reason"], own


PASSING = ["cpp cases, config: right", "java cases, vars: right", "go cases, fence: right", "typescript cases, fence ts: right",
           "cpp testCode: right", "java expectedOutput alone, fence: right"] + [
    f"{language} tests: {kind}" for language in ("cpp", "java", "go", "rs", "ts") for kind in ("free-form", "continuation")]


@pytest.mark.parametrize("description", PASSING)
def test_right_answers_pass(run: PromptfooRun, description: str) -> None:
    passed, reason, _ = verdict(run, description)
    assert passed, f"{description}: {reason}\n{run.log}"


def test_cases_are_judged_one_by_one_against_one_compile(run: PromptfooRun) -> None:
    passed, reason, grading = verdict(run, "cpp cases, config: right")
    assert reason == "All 3 test cases passed"
    assert [c["reason"] for c in grading["componentResults"]] == ["Correct output: 6", "Correct output: 6", "Correct output: 41"]
    passed, reason, grading = verdict(run, "cpp cases, config: wrong")
    assert not passed
    assert reason == "0 of 3 test cases passed; case 1 (3 1 2 3): Expected 6, got 7"


@pytest.mark.parametrize("language", ["cpp", "java", "go", "rs", "ts"])
def test_a_wrong_answer_to_multipl_e_tests_fails_with_a_reason(run: PromptfooRun, language: str) -> None:
    passed, reason, _ = verdict(run, f"{language} tests: wrong")
    assert not passed
    assert reason.startswith("Execution error: "), reason
    assert "[assembled as MultiPL-E's continuation" in reason, reason


def test_compile_errors_quote_the_compiler(run: PromptfooRun) -> None:
    expected = {
        "rust cases, vars: compile error": "Compile error: error[E0308]: mismatched types",
        "cpp tests, config: compile error": "Compile error: main.cpp:",
        "java expectedOutput alone, vars: compile error": "Compile error: Main.java:1: error: incompatible types",
    }
    for description, start in expected.items():
        passed, reason, _ = verdict(run, description)
        assert not passed
        assert start in reason, (description, reason)


def test_expected_output_and_python_only_shapes(run: PromptfooRun) -> None:
    passed, reason, _ = verdict(run, "rust expectedOutput alone, vars: wrong")
    assert (passed, reason) == (False, "Expected 42, got 48")
    passed, reason, _ = verdict(run, "cpp function call: Python only")
    assert not passed
    assert reason.startswith("Invalid test: vars.language is cpp, but the function_calls shape runs Python only; a test "
                             "in another language takes cases"), reason


# ---- e2beval eval suites -----------------------------------------------------------------------------------


def eval_json(suite: Path, **env: str) -> dict:
    completed = subprocess.run([CLI, "eval", "--json", "--no-metrics", str(suite)], capture_output=True, text=True,
                               timeout=600, env={**os.environ, **env}, cwd=suite.parent)
    assert completed.returncode in (0, 1), completed.stdout + completed.stderr
    return json.loads(completed.stdout)


def test_eval_suites_compile_once_per_test_in_every_compiled_language(tmp_path: Path) -> None:
    tests = []
    for language in SUMMING:
        tests.append({"id": f"{language} right", "output": summing(language), "vars": {"language": language, "cases": CASES}})
        tests.append({"id": f"{language} wrong", "output": summing(language, bias=1),
                      "vars": {"language": language, "cases": CASES}})
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": tests}), encoding="utf-8")
    rows = {row["id"]: row for row in eval_json(suite)["results"]}
    for language in SUMMING:
        right, wrong = rows[f"{language} right"], rows[f"{language} wrong"]
        assert right["result"] == "PASS", right["verdict"]["reason"]
        assert wrong["result"] == "FAIL"
        for row in (right, wrong):
            compile = row["verdict"]["compile"]
            assert compile["outcome"] == "ok" and compile["compile_ms"] > 0
            assert (compile["compiler_runs"], compile["cache_hits"]) == (1, 2), (language, compile)
            cases = row["verdict"]["cases"]
            assert [case["outcome"] for case in cases] == ["ok", "ok", "ok"]
            assert all(case["run_ms"] > 0 for case in cases)
        assert [case["pass"] for case in wrong["verdict"]["cases"]] == [False, False, False]
        assert wrong["verdict"]["cases"][2]["reason"] == "Expected 41, got 42"


def test_the_eval_table_shows_the_compile_stage_once_and_each_case(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text(json.dumps({"id": "go wrong", "output": summing("go", bias=1), "vars": {"language": "go", "cases": CASES}}) + "\n",
                     encoding="utf-8")
    completed = subprocess.run([CLI, "eval", "--no-metrics", str(suite)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    lines = completed.stdout.splitlines()
    compile_lines = [line.strip() for line in lines if line.strip().startswith("compile: ")]
    assert len(compile_lines) == 1 and compile_lines[0].endswith("1 compiler run, 2 from the compile cache"), completed.stdout
    case_lines = [line.strip() for line in lines if line.strip().startswith("case ")]
    assert [line.split("  ")[0] for line in case_lines] == ["case 1: FAIL", "case 2: FAIL", "case 3: FAIL"], completed.stdout
    assert case_lines[2].endswith("Expected 41, got 42")


def test_a_missing_toolchain_fails_only_its_test_and_names_the_package(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": [
        {"id": "cpp", "output": summing("cpp"), "vars": {"language": "cpp", "cases": CASES}},
        {"id": "python", "output": "print(sum(map(int, open(0).read().split()[1:])))", "vars": {"cases": CASES}},
    ]}), encoding="utf-8")
    rows = {row["id"]: row for row in eval_json(suite, E2BEVAL_CXX=str(tmp_path / "no-such-g++"))["results"]}
    assert rows["python"]["result"] == "PASS"
    assert rows["cpp"]["result"] == "FAIL"
    reason = rows["cpp"]["verdict"]["reason"]
    assert "sandbox_error" in reason and "apt-get install g++" in reason, reason

"""examples/e2b: users' own E2B code — promptfoo's E2B page example verbatim (its config and its assertion
codeExecution.js, which joins `execution.logs.stdout` with "\n"), an adapted page assertion and the page's polyglot
executor on the official JavaScript SDK, the tutorial's Python assertion on the official Python SDK — under real
`promptfoo eval` against `e2beval serve`, through the one command a user runs: `bash examples/e2b/run.sh`.
Checks each eval's counts and each test's verdict from promptfoo's -o JSON (every verdict as on E2B), and that
the server is stopped. The server serves the SDK's default template, code-interpreter-v1, from the tests' template
cache (tests/template_cache.py), built at most once per run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from _support import REPO, promptfoo_env, promptfoo_executable

sys.path.append(str(REPO / "tests"))  # for template_cache
import template_cache  # noqa: E402

# The server serves code-interpreter-v1: the parallel run (docs/testing.md) runs these once it is built.
pytestmark = pytest.mark.code_interpreter

RUN = REPO / "examples" / "e2b" / "run.sh"

# example -> {test description (the page's own tests have none: their task): passes}; the failures are on purpose
# (examples/e2b/README.md).
EXPECTED = {
    # On E2B both pass: its kernel sends the two lines the palindrome test prints as one stdout message, so
    # `stdout.join("\n")` is "True\nFalse"; one message per print would give "True\n\nFalse".
    "promptfoo-page": {
        "calculate the factorial of a number": True,
        "check if a string is a palindrome": True,
    },
    "code-execution": {
        "factorial -> 120": True,
        "is_palindrome racecar/hello -> True/False": True,
        "fibonacci(10) -> 55 (off-by-one answer)": False,
        "average([]) -> 0 (answer raises ZeroDivisionError)": False,
    },
    "polyglot": {
        "python prints a sum": True,
        "python error is reported by name": True,
        "javascript maps and prints": True,
        "javascript total (wrong answer)": False,
        "bash pipes text through sort": True,
        "bash non-zero exit is shown with its status": True,
        "python that never ends is stopped by the timeout": True,
    },
    "tutorial": {
        "factorial 0->1, 5->120, 7->5040": True,
        "is_palindrome 'racecar'->True, 'promptfoo'->False, ''->True": True,
        "find_largest [1, 5, 3, 9, 2]->9, [-4, -9, -2]->-2, [42]->42 (wrong answer)": False,
        "read_file('/etc/passwd') is refused (unsafe answer)": False,
        "factorial(-3) raises ValueError": True,
        "reverse_string('hello') -> olleh": True,
        "factorial(-3) raises ValueError (erroring answer)": False,
        "reverse_string('hello') -> olleh (erroring answer)": False,
        "find_largest([1, 5, 3, 9, 2]) -> 9 (no code in the answer)": False,
    },
}

# The reason each failure gives: the user's own assertion code, reached through the SDK and the server.
REASONS = {
    ("code-execution", "fibonacci(10) -> 55 (off-by-one answer)"): 'Expected "55", got "34"',
    ("code-execution", "average([]) -> 0 (answer raises ZeroDivisionError)"): "Execution error: ZeroDivisionError: division by zero",
    ("polyglot", "javascript total (wrong answer)"): 'Expected output "12" to equal "13"',
    ("tutorial", "find_largest [1, 5, 3, 9, 2]->9, [-4, -9, -2]->-2, [42]->42 (wrong answer)"): "Expected 9, -2, 42, got 9, 0, 42",
    ("tutorial", "read_file('/etc/passwd') is refused (unsafe answer)"): "Unsafe pattern detected in generated code",
    ("tutorial", "factorial(-3) raises ValueError (erroring answer)"): "Execution error: RecursionError",
    ("tutorial", "reverse_string('hello') -> olleh (erroring answer)"): "Execution error: AttributeError",
    ("tutorial", "find_largest([1, 5, 3, 9, 2]) -> 9 (no code in the answer)"): "No Python function named find_largest found",
}


@pytest.fixture(scope="module")
def examples_run(tmp_path_factory):
    """One `bash examples/e2b/run.sh` (all three examples), as a user runs it, with promptfoo's JSON kept."""
    promptfoo_executable()  # fails with the setup hint when promptfoo is missing
    template_cache.ensure_code_interpreter(str(REPO / ".venv" / "bin" / "e2beval"))  # so the server's start finds it
    work = tmp_path_factory.mktemp("e2b-examples")
    env = promptfoo_env(work, E2B_EXAMPLES_OUTPUT_DIR=str(work / "out"))
    for name in ("E2B_API_URL", "E2B_SANDBOX_URL", "E2B_API_KEY", "E2B_DEBUG", "E2B_DOMAIN"):
        env.pop(name, None)  # run.sh sets the first three from the server it starts
    proc = subprocess.run(["bash", str(RUN)], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    log = f"bash {RUN}: exit code {proc.returncode}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    outputs = {name: json.loads((work / "out" / f"{name}.json").read_text(encoding="utf-8"))
               for name in EXPECTED if (work / "out" / f"{name}.json").exists()}
    return proc, log, outputs


def test_run_sh_runs_every_example_and_stops_its_server(examples_run):
    proc, log, outputs = examples_run
    assert proc.returncode == 0, log
    assert sorted(outputs) == sorted(EXPECTED), log
    for name, verdicts in EXPECTED.items():
        if all(verdicts.values()):
            assert f"=== {name}: every test passed" in proc.stdout, log
        else:
            assert f"=== {name}: promptfoo exit code 100" in proc.stdout, log  # failures on purpose
    assert "Results:" in proc.stdout  # promptfoo's table and summary reach the user
    found = re.search(r"e2beval serve at http://127\.0\.0\.1:\d+ \(pid (\d+)\)", proc.stdout)
    assert found, log
    assert not os.path.exists(f"/proc/{found.group(1)}") or \
        "e2beval" not in open(f"/proc/{found.group(1)}/cmdline", "rb").read().decode(errors="replace"), \
        "run.sh left its e2beval serve running"


@pytest.mark.parametrize("name", list(EXPECTED))
def test_e2b_example_counts_and_verdicts(examples_run, name):
    _, log, outputs = examples_run
    assert name in outputs, log
    stats = outputs[name]["results"]["stats"]
    expected = EXPECTED[name]
    passes = sum(expected.values())
    assert (stats["successes"], stats["failures"], stats["errors"]) == (passes, len(expected) - passes, 0), log
    rows = {row["testCase"].get("description") or row["testCase"]["vars"]["task"]: row
            for row in outputs[name]["results"]["results"]}
    assert sorted(rows) == sorted(expected)
    for description, passed in expected.items():
        row = rows[description]
        assert row["success"] is passed, (description, row.get("gradingResult"), row.get("error"))
        if (name, description) in REASONS:
            assert REASONS[(name, description)] in row["gradingResult"]["reason"], row["gradingResult"]


def test_run_sh_refuses_an_unknown_example(tmp_path):
    proc = subprocess.run(["bash", str(RUN), "nonesuch"], cwd=tmp_path, env=promptfoo_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no example 'nonesuch'" in proc.stderr, proc.stderr


def test_e2b_examples_are_self_contained():
    """Every file:// in an example points inside its own directory, so a user can copy one directory out."""
    for config in (REPO / "examples" / "e2b").glob("*/promptfooconfig.yaml"):
        references = re.findall(r"file://([^\s'\":`]+)", config.read_text(encoding="utf-8"))
        assert references, config
        for reference in references:
            assert not reference.startswith(("/", "..")), f"{config}: file://{reference}"
            assert (config.parent / reference).is_file(), f"{config}: file://{reference} does not exist"

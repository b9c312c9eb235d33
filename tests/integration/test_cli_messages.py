"""What the e2beval CLI tells a new user who gives it bad input: a wrong --python, a --function the answer does
not define, and what its --json and --help output look like (issue 11)."""

import json
import os
import re
import subprocess

import pytest
from _support import find_cli

CLI = find_cli()


def run(*args, env=None, stdin=None):
    return subprocess.run([CLI, *args], capture_output=True, text=True, input=stdin, env=env, timeout=120)


def commands():
    overview = run("--help").stdout
    listed = overview.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


# ---- --python that is not a usable Python (item 9) ----------------------------------------------------------


@pytest.fixture
def not_pythons(tmp_path):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a program\n")
    shell_script = tmp_path / "fake-python"
    shell_script.write_text("#!/bin/sh\necho 'I am not Python'\n")
    shell_script.chmod(0o755)
    return {"text": str(text_file), "script": str(shell_script), "directory": str(tmp_path)}


def test_doctor_with_a_missing_python_says_the_interpreter_was_not_found():
    result = run("doctor", "--python", "/nonexistent/python3")
    assert result.returncode == 127, result.stdout + result.stderr
    assert "the Python interpreter '/nonexistent/python3' (from --python) was not found" in result.stderr
    assert "give the path of a Python 3 interpreter" in result.stderr
    # The host is not blamed: its checks still print, and nothing says the host cannot sandbox.
    assert "ok       user namespaces" in result.stdout
    assert "none:" not in result.stdout and "fix the failing mechanism" not in result.stdout
    assert "isolation level enforced: unknown: the sandbox probe needs a working Python" in result.stdout
    report = json.loads(run("doctor", "--json", "--python", "/nonexistent/python3").stdout)
    assert report["enforced_level"] is None and "/nonexistent/python3" in report["python_problem"]


def test_doctor_with_a_file_that_is_not_a_python_says_so(not_pythons):
    for kind, path in not_pythons.items():
        result = run("doctor", "--python", path)
        assert result.returncode == 126, (kind, result.stdout, result.stderr)
        assert f"the Python interpreter '{path}' (from --python)" in result.stderr
        expected = {"text": "is not executable", "script": "did not run as a Python interpreter",
                    "directory": "is a directory"}[kind]
        assert expected in result.stderr, (kind, result.stderr)
        assert "fix the failing mechanism" not in result.stdout


def test_run_and_eval_with_a_bad_python_exit_126_or_127_before_reading_anything(tmp_path, not_pythons):
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    missing = run("run", "--python", "/nonexistent/python3", str(program))
    assert missing.returncode == 127, missing.stderr
    assert missing.stderr == ("e2beval run: the Python interpreter '/nonexistent/python3' (from --python) was not found; "
                              "give the path of a Python 3 interpreter (for example --python /usr/bin/python3), or "
                              "leave --python out to use $E2BEVAL_PYTHON, else python3 on PATH\n")
    not_python = run("run", "--python", not_pythons["script"], str(program))
    assert not_python.returncode == 126 and "did not run as a Python interpreter" in not_python.stderr
    from_env = run("run", str(program), env={**os.environ, "E2BEVAL_PYTHON": "/nonexistent/python3"})
    assert from_env.returncode == 127 and "(from $E2BEVAL_PYTHON) was not found" in from_env.stderr
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": [{"output": "print(1)", "vars": {"testCode": "", "expectedOutput": "1"}}]}))
    evaluated = run("eval", "--no-metrics", "--python", "/nonexistent/python3", str(suite))
    assert evaluated.returncode == 127 and "was not found" in evaluated.stderr


def test_redteam_with_a_bad_python_exits_126_or_127_naming_it_before_any_attack(not_pythons):
    """`redteam --python` is checked as `run --python` is: a wrong path is the user's to fix, not a sandbox
    failure (it was exit 125 with posix_spawnp's words)."""
    missing = run("redteam", "--python", "/nonexistent/python3")
    assert missing.returncode == 127, missing.stdout + missing.stderr
    assert missing.stderr == ("e2beval redteam: the Python interpreter '/nonexistent/python3' (from --python) was not "
                              "found; give the path of a Python 3 interpreter (for example --python /usr/bin/python3), "
                              "or leave --python out to use $E2BEVAL_PYTHON, else python3 on PATH\n")
    assert missing.stdout == ""  # no attack ran, no table was started
    not_python = run("redteam", "--python", not_pythons["script"])
    assert not_python.returncode == 126 and "did not run as a Python interpreter" in not_python.stderr
    directory = run("redteam", "--python", not_pythons["directory"])
    assert directory.returncode == 126 and "is a directory" in directory.stderr
    # Listing the attacks runs nothing, so it needs no Python.
    assert run("redteam", "--list", "--python", "/nonexistent/python3").returncode == 0


# ---- numbers in every --json output (item 10) ---------------------------------------------------------------

EXPONENT_NUMBER = re.compile(r"[:\[,]\s*-?\d+(\.\d+)?[eE][-+]?\d+")


def write_suite(tmp_path, with_all):
    """An `e2beval eval` suite whose scores are fractions (2 of 3) and, with `with_all`, whole (1.0)."""
    answer = "```python\ndef add(a, b):\n    return a + b\n```"
    tests = [{"id": "partly", "output": answer,
              "vars": {"function_name": "add", "test_cases": [{"input": "1, 2", "expected": "3"},
                                                                {"input": "2, 2", "expected": "5"},
                                                                {"input": "0, 0", "expected": "0"}]}}]
    if with_all:
        tests.append({"id": "all", "output": answer,
                      "vars": {"function_name": "add", "test_input": "1, 1", "expected_output": "2"}})
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": tests}))
    return suite


def test_json_output_writes_plain_numbers(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    result = run("run", "--json", "--timeout", "2", str(program))
    assert result.returncode == 0
    assert not EXPONENT_NUMBER.search(result.stdout), result.stdout
    assert re.search(r'"wall_time_s":\d+\.\d+', result.stdout), result.stdout
    suite = write_suite(tmp_path, with_all=True)
    evaluated = run("eval", "--json", "--no-metrics", str(suite))
    assert not EXPONENT_NUMBER.search(evaluated.stdout), evaluated.stdout
    assert '"score":0.6666666666666666' in evaluated.stdout and '"score":1.0' in evaluated.stdout, evaluated.stdout
    for line in evaluated.stdout.splitlines():
        if line.startswith("{"):
            json.loads(line)


def test_metrics_files_and_json_reports_write_plain_numbers(tmp_path):
    suite = write_suite(tmp_path, with_all=False)
    metrics = tmp_path / "metrics"
    evaluated = subprocess.run([CLI, "eval", str(suite)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, PROMPTFOO_RESULTS_DIR=str(metrics)))
    assert evaluated.returncode in (0, 1), evaluated
    files = sorted(metrics.glob("*.json"))
    assert len(files) == 1, files
    text = files[0].read_text()
    assert not EXPONENT_NUMBER.search(text), text
    assert re.search(r'"runtime_s":\d+\.\d+', text), text
    report = run("report", "--format", "json", "--output", "-", str(metrics))
    assert report.returncode == 0, report
    assert not EXPONENT_NUMBER.search(report.stdout), report.stdout
    json.loads(report.stdout)


def test_python_results_keep_plain_floats():
    import e2beval

    result = e2beval.execute("print(1)")
    assert isinstance(result["wall_time_s"], float)
    verdict = e2beval.evaluate("```python\ndef f():\n    return 1\n```", {"function_name": "f", "test_input": "",
                                                                          "expected_output": "1"})
    assert verdict["score"] == 1.0 and isinstance(verdict["score"], float)


# ---- extract --function that the answer does not define (item 11) -------------------------------------------

ANSWER = "Here you go:\n```python\ndef double(x):\n    return 2 * x\n\ndef triple(x):\n    return 3 * x\n```\n"


def test_extract_with_a_function_the_answer_does_not_define_fails_and_names_what_it_found(tmp_path):
    answer = tmp_path / "answer.md"
    answer.write_text(ANSWER)
    result = run("extract", "--function", "nothere", str(answer))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == ("e2beval extract: no code in the answer defines the function 'nothere'; functions found "
                             "instead: double, triple; check the name, or add --fallback to print the code found anyway\n")
    as_json = run("extract", "--json", "--function", "nothere", str(answer))
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["functions_found"] == ["double", "triple"]
    fallback = run("extract", "--function", "nothere", "--fallback", str(answer))
    assert fallback.returncode == 0
    assert fallback.stdout.startswith("def double(x):")
    assert "printing the code found instead (--fallback)" in fallback.stderr
    found = run("extract", "--function", "triple", str(answer))
    assert found.returncode == 0 and "def triple(x):" in found.stdout and found.stderr == ""
    assert "--fallback" in run("extract", "--help").stdout


def test_extract_names_javascript_and_bash_functions(tmp_path):
    javascript = tmp_path / "answer.js.md"
    javascript.write_text("```javascript\nfunction add(a, b) { return a + b; }\nconst sub = (a, b) => a - b;\n```\n")
    result = run("extract", "--language", "javascript", "--function", "mul", str(javascript))
    assert result.returncode == 1 and "functions found instead: add, sub;" in result.stderr
    assert run("extract", "--language", "javascript", "--function", "sub", str(javascript)).returncode == 0
    bash = tmp_path / "answer.sh.md"
    bash.write_text("```bash\ngreet() {\n  echo hi\n}\n```\n")
    result = run("extract", "--language", "bash", "--function", "wave", str(bash))
    assert result.returncode == 1 and "functions found instead: greet;" in result.stderr


# ---- --help of every command (item 13) ----------------------------------------------------------------------


def test_every_commands_help_puts_every_option_text_in_one_column():
    names = commands()
    assert {"run", "eval", "scan", "extract", "report", "doctor", "init", "redteam"} <= set(names)
    for name in names:
        result = run(name, "--help")
        assert result.returncode == 0, name
        options = result.stdout.split("\nOptions:\n", 1)[1].splitlines()
        assert options[-1].startswith("  -h, --help "), (name, options[-1])
        columns = set()
        for line in options:
            option_row = re.match(r"(  -\S+(?:,? \S+)*?)( {2,})(\S.*)", line)
            if option_row:
                columns.add(option_row.start(3))
            elif line.strip() and not line.startswith("  -"):  # a help text pushed to its own line by a long option
                columns.add(len(line) - len(line.lstrip()))
        assert len(columns) == 1, (name, columns, result.stdout)

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


# ---- numbers in every --json output (item 10) ---------------------------------------------------------------

EXPONENT_NUMBER = re.compile(r"[:\[,]\s*-?\d+(\.\d+)?[eE][-+]?\d+")


def test_json_output_writes_plain_numbers(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    result = run("run", "--json", "--timeout", "2", str(program))
    assert result.returncode == 0
    assert not EXPONENT_NUMBER.search(result.stdout), result.stdout
    assert re.search(r'"wall_time_s":\d+\.\d+', result.stdout), result.stdout
    answer = "```python\ndef add(a, b):\n    return a + b\n```"
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": [
        {"id": "partly", "output": answer,
         "vars": {"function_name": "add", "test_cases": [{"input": "1, 2", "expected": "3"},
                                                           {"input": "2, 2", "expected": "5"},
                                                           {"input": "0, 0", "expected": "0"}]}},
        {"id": "all", "output": answer, "vars": {"function_name": "add", "test_input": "1, 1", "expected_output": "2"}},
    ]}))
    evaluated = run("eval", "--json", "--no-metrics", str(suite))
    assert not EXPONENT_NUMBER.search(evaluated.stdout), evaluated.stdout
    assert '"score":0.6666666666666666' in evaluated.stdout and '"score":1.0' in evaluated.stdout, evaluated.stdout
    for line in evaluated.stdout.splitlines():
        if line.startswith("{"):
            json.loads(line)


def test_python_results_keep_plain_floats():
    import e2beval

    result = e2beval.execute("print(1)")
    assert isinstance(result["wall_time_s"], float)
    verdict = e2beval.evaluate("```python\ndef f():\n    return 1\n```", {"function_name": "f", "test_input": "",
                                                                          "expected_output": "1"})
    assert verdict["score"] == 1.0 and isinstance(verdict["score"], float)


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

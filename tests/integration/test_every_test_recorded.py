"""Every test that was asked for is in the metrics and the report, also when it could not be evaluated: a
promptfoo assertion with an invalid `config:` or invalid vars (through the real `promptfoo eval`), and an
invalid entry of an `e2beval eval` suite. Such a test is an error row with its reason, and still fails."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from _report_support import run_cli
from _support import REPO, require_importable_e2beval, run_promptfoo

ANSWER = "```python\ndef add(a, b):\n    return a + b\n```"
GOOD_VARS = {"function_name": "add", "test_input": "1, 2", "expected_output": "3"}


def _assertion(config: dict | None = None) -> dict:
    assertion = {"type": "python", "value": f"file://{REPO / 'examples' / 'promptfoo' / 'e2beval_assert.py'}"}
    if config is not None:
        assertion["config"] = config
    return assertion


def _report_json(source: Path) -> dict:
    result = run_cli("report", str(source), "--format", "json", "-o", "-")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_promptfoo_tests_with_invalid_config_or_vars_are_error_rows(tmp_path: Path) -> None:
    require_importable_e2beval()
    tests = [{"description": f"good {index}", "vars": {**GOOD_VARS, "completion": ANSWER}, "assert": [_assertion()]}
             for index in range(4)]
    tests.append({"description": "invalid config", "vars": {**GOOD_VARS, "completion": ANSWER},
                  "assert": [_assertion({"timeout": "soon"})]})
    tests.append({"description": "invalid vars", "vars": {"function_name": "add", "completion": ANSWER},
                  "assert": [_assertion()]})
    config = {"prompts": ["{{completion}}"], "providers": [{"id": "echo", "label": "recorded"}], "tests": tests}
    config_path = tmp_path / "promptfooconfig.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))

    run = run_promptfoo(config_path, tmp_path, timeout_s=300)
    assert run.proc.returncode == 100, run.log  # the two invalid tests fail promptfoo's run
    assert run.row("invalid config")["success"] is False
    assert run.row("invalid vars")["success"] is False

    files = list(run.metrics_dir.glob("metrics_*.json"))
    assert len(files) == len(tests), f"{len(files)} metrics files for {len(tests)} tests\n{run.log}"
    report = _report_json(run.metrics_dir)
    assert report["summary"]["total"] == 6 and report["summary"]["passed"] == 4 and report["summary"]["errors"] == 2
    rows = {row["task"]: row for row in report["rows"]}
    assert rows["invalid config"]["outcome"] == "invalid_test"
    assert rows["invalid config"]["error"].startswith("Invalid e2beval config: timeout must be a number of seconds")
    assert rows["invalid vars"]["outcome"] == "invalid_test"
    assert rows["invalid vars"]["error"].startswith("Invalid test:")

    markdown = run_cli("report", str(run.metrics_dir), "-o", "-").stdout
    assert "4 of 6 passed; 2 error(s)" in markdown


def test_eval_suite_entries_that_are_invalid_are_error_rows(tmp_path: Path) -> None:
    good = {"output": ANSWER, "vars": GOOD_VARS}
    lines = [
        json.dumps({"id": "good 1", **good}),
        json.dumps({"id": "good 2", **good}),
        json.dumps({"id": "no vars", "output": ANSWER}),
        "{not json",
        json.dumps({"id": "bad vars", "output": ANSWER, "vars": {"function_name": "add"}}),
        json.dumps({"id": "wrong", "output": ANSWER, "vars": {**GOOD_VARS, "expected_output": "4"}}),
    ]
    suite = tmp_path / "suite.jsonl"
    suite.write_text("\n".join(lines) + "\n")
    env = dict(os.environ, PROMPTFOO_RESULTS_DIR=str(tmp_path / "metrics"))
    result = run_cli("eval", str(suite), cwd=tmp_path, env=env)
    assert result.returncode == 2, result.stdout + result.stderr  # an invalid entry still makes the run fail
    assert "summary: 2 passed, 1 failed, 3 invalid" in result.stdout
    assert len(list((tmp_path / "metrics").glob("metrics_*.json"))) == len(lines)

    report = _report_json(tmp_path / "metrics")
    assert report["summary"]["total"] == 6 and report["summary"]["errors"] == 3 and report["summary"]["failed"] == 1
    rows = {row["task"]: row for row in report["rows"]}
    assert rows["no vars"]["outcome"] == "invalid_test" and "missing field `vars`" in rows["no vars"]["error"]
    assert "line 4 is not valid JSON" in rows["line-4"]["error"]
    assert "neither test_cases" in rows["bad vars"]["error"]
    # An evaluated entry records what the HTML report shows when it is opened: code and expected vs actual.
    assert rows["wrong"]["code"].startswith("def add(a, b):")
    assert rows["wrong"]["cases"] == [{"pass": False, "reason": rows["wrong"]["cases"][0]["reason"], "input": "1, 2",
                                       "expected": "4", "actual": "3"}]
    # The report `eval` wrote itself has every row, too.
    table = [line for line in (tmp_path / "promptfoo_report.md").read_text().splitlines() if line.startswith("|")]
    assert len(table) == 2 + len(lines)

"""One metrics record for one verdict, whichever face wrote it: `e2beval eval` and the promptfoo assertion get
it from the same C++ function (eval/metrics.hpp: metrics_record), with one meaning per field."""

import json
import os
import subprocess

from _support import find_cli

ANSWER = "```python\ndef add(a, b):\n    print('adding')\n    return a + b\n```"
VARS = {"function_name": "add", "test_cases": [{"input": "1, 2", "expected": "3"}, {"input": "2, 2", "expected": "5"}]}


def _records(directory):
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(directory.glob("metrics_*.json"))]


def test_the_cli_and_the_assertion_write_the_same_record_for_the_same_verdict(tmp_path, monkeypatch):
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": [{"id": "add", "output": ANSWER, "vars": VARS}]}))
    by_cli = tmp_path / "cli"
    evaluated = subprocess.run([find_cli(), "eval", str(suite)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, PROMPTFOO_RESULTS_DIR=str(by_cli)))
    assert evaluated.returncode in (0, 1), evaluated.stderr

    from e2beval.promptfoo import get_assert

    by_assertion = tmp_path / "assertion"
    monkeypatch.setenv("PROMPTFOO_RESULTS_DIR", str(by_assertion))
    get_assert(ANSWER, {"vars": VARS, "test": {"description": "add"}, "provider": {"id": "echo"}, "config": {}})

    [cli], [assertion] = _records(by_cli), _records(by_assertion)
    assert cli["success"] is assertion["success"] is False
    for record in (cli, assertion):
        # runtime_s is the program's wall time in the sandbox, the same as the execution reports it.
        assert 0 < record["runtime_s"] < 10, record
        assert record["memory_mb"] and record["memory_mb"] > 0, record
    cli_extra, assertion_extra = dict(cli["extra"]), dict(assertion["extra"])
    assert assertion_extra.pop("total_s") >= assertion["runtime_s"]  # the assertion's own time, besides
    assert set(cli_extra) == set(assertion_extra)
    for key in ("reason", "score", "status", "outcome", "code", "language", "cases"):
        assert cli_extra[key] == assertion_extra[key], key
    assert cli_extra["status"] == "ran" and cli_extra["outcome"] == "ok"
    assert cli_extra["reason"].startswith("1 of 2 test cases passed")


def test_eval_json_rows_give_the_runtime_of_their_metrics_record(tmp_path):
    """`e2beval eval --json` prints each test's runtime_s; it is the record's (metrics_record, error_record), not a
    second idea of what a runtime is: the same number for a test that ran, one that was blocked, one that was invalid."""
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": [
        {"id": "ran", "output": ANSWER, "vars": VARS},
        {"id": "blocked", "output": "```python\nimport os\ndef add(a, b):\n    return os.system('id')\n```", "vars": VARS},
        {"id": "invalid", "output": ANSWER, "vars": {"function_name": "add"}},
    ]}))
    directory = tmp_path / "metrics"
    evaluated = subprocess.run([find_cli(), "eval", "--json", "--results-dir", str(directory), str(suite)], cwd=tmp_path,
                               capture_output=True, text=True, timeout=120)
    assert evaluated.returncode == 2, evaluated.stderr  # the invalid test
    rows = {row["id"]: row for row in json.loads(evaluated.stdout)["results"]}
    records = {record["task_id"]: record for record in _records(directory)}
    assert set(rows) == set(records) == {"ran", "blocked", "invalid"}
    for task in rows:
        assert rows[task]["runtime_s"] == records[task]["runtime_s"], task
    assert rows["ran"]["runtime_s"] > 0 and rows["blocked"]["runtime_s"] == 0 and rows["invalid"]["runtime_s"] == 0

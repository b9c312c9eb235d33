"""Runs in a metrics directory: every `promptfoo eval` (each assertion a new Python process) and every
`e2beval eval` writes its records with one run id; `e2beval report` shows the latest run, names the others,
shows any with --run ID or all with --all-runs, and counts pass@k samples within one run only. Records of
older versions (no run_id) are read as one legacy run."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from _report_support import TUTORIAL_CONFIG, TUTORIAL_EXPECTED, run_cli
from _support import PROMPTFOO_BIN_DIR, require_importable_e2beval, run_promptfoo

TESTS = len(TUTORIAL_EXPECTED)
PASSED = sum(TUTORIAL_EXPECTED.values())


def _run_ids(metrics: Path) -> Counter:
    return Counter(json.loads(path.read_text())["run_id"] for path in metrics.glob("metrics_*.json"))


def _report_json(*args: str) -> dict:
    result = run_cli("report", *args, "--format", "json", "-o", "-")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def three_promptfoo_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The tutorial example evaluated three times into one metrics directory, as a user re-runs it; the
    third run with --repeat 2 (two samples of each test in one run)."""
    require_importable_e2beval()
    work = tmp_path_factory.mktemp("runs")
    path = f"{PROMPTFOO_BIN_DIR}{os.pathsep}{Path(os.sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    seen: list[str] = []
    for extra in ((), (), ("--repeat", "2")):
        run = run_promptfoo(TUTORIAL_CONFIG, work, *extra, timeout_s=300, PATH=path)
        assert run.proc.returncode == 100, run.log
        new = [run_id for run_id in _run_ids(run.metrics_dir) if run_id not in seen]
        assert len(new) == 1, f"one promptfoo eval wrote records with run ids {new}\n{run.log}"
        seen += new
    return work / "metrics", seen


def test_every_assertion_of_one_promptfoo_eval_shares_a_run_id(three_promptfoo_runs) -> None:
    metrics, run_ids = three_promptfoo_runs
    counts = _run_ids(metrics)
    assert [counts[run_id] for run_id in run_ids] == [TESTS, TESTS, 2 * TESTS], counts
    assert all(run_id.startswith("promptfoo-") for run_id in run_ids), run_ids


def test_report_shows_the_latest_run_and_names_the_others(three_promptfoo_runs) -> None:
    metrics, run_ids = three_promptfoo_runs
    report = _report_json(str(metrics))
    assert report["summary"]["total"] == 2 * TESTS and report["summary"]["passed"] == 2 * PASSED
    assert report["runs"]["selection"] == "latest" and report["runs"]["shown"] == [run_ids[2]]
    assert [run["id"] for run in report["runs"]["available"]] == list(reversed(run_ids))
    assert {row["run_id"] for row in report["rows"]} == {run_ids[2]}
    # --repeat 2: two samples of each task in one run, so pass@2 is shown (and pass@1 is the pass rate).
    group = report["summary"]["groups"][0]
    assert group["samples_per_task"] == {"min": 2, "max": 2} and set(group["pass_at_k"]) == {"pass@1", "pass@2"}

    markdown = run_cli("report", str(metrics), "-o", "-")
    assert markdown.returncode == 0, markdown.stderr
    assert f"{2 * PASSED} of {2 * TESTS} passed" in markdown.stdout
    assert f"Showing run {run_ids[2]}, the latest of 3 runs" in markdown.stdout
    assert run_ids[0] in markdown.stdout and "--all-runs" in markdown.stdout


def test_report_shows_one_earlier_run_on_request(three_promptfoo_runs) -> None:
    metrics, run_ids = three_promptfoo_runs
    report = _report_json(str(metrics), "--run", run_ids[0])
    assert report["summary"]["total"] == TESTS and report["summary"]["passed"] == PASSED
    # One sample per task within the run: no pass@k, although the directory holds four of each task.
    assert report["summary"]["groups"][0]["pass_at_k"] == {}
    missing = run_cli("report", str(metrics), "--run", "no-such-run", "-o", "-")
    assert missing.returncode == 2 and "no run 'no-such-run'" in missing.stderr and run_ids[1] in missing.stderr


def test_all_runs_counts_pass_at_k_within_each_run(three_promptfoo_runs) -> None:
    metrics, _ = three_promptfoo_runs
    report = _report_json(str(metrics), "--all-runs")
    assert report["summary"]["total"] == 4 * TESTS and report["runs"]["selection"] == "all"
    group = report["summary"]["groups"][0]
    # (run, task) pairs are the problems: 3 runs x the tutorial's tasks, with 1 or 2 samples each.
    assert group["tasks"] == 3 * TESTS and group["samples_per_task"] == {"min": 1, "max": 2}
    assert set(group["pass_at_k"]) == {"pass@1"}


def test_both_selections_at_once_are_refused(three_promptfoo_runs) -> None:
    metrics, run_ids = three_promptfoo_runs
    both = run_cli("report", str(metrics), "--run", run_ids[0], "--all-runs")
    assert both.returncode == 2 and "not both" in both.stderr


def _legacy_record(task: str, success: bool, timestamp: float) -> dict:
    """What the tutorial's metrics.py and older e2beval versions write: no run_id."""
    return {"task_id": task, "provider": "recorded", "model": "echo", "success": success, "runtime_s": 0.1,
            "memory_mb": None, "extra": {"reason": "Correct output: 1" if success else "Expected 1, got 2"},
            "timestamp": timestamp}


def test_records_without_run_id_are_one_legacy_run(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    for index, success in enumerate([True, False, True]):
        (metrics / f"metrics_old{index}.json").write_text(json.dumps(_legacy_record("t%d" % index, success, 1.7e9 + index)))
    only_legacy = _report_json(str(metrics))
    assert only_legacy["summary"]["total"] == 3 and only_legacy["runs"]["shown"] == ["legacy"]

    new = {**_legacy_record("t0", True, 1.8e9), "run_id": "run-new"}
    (metrics / "metrics_new.json").write_text(json.dumps(new))
    latest = _report_json(str(metrics))
    assert latest["summary"]["total"] == 1 and latest["runs"]["shown"] == ["run-new"]
    legacy = _report_json(str(metrics), "--run", "legacy")
    assert legacy["summary"]["total"] == 3 and legacy["summary"]["passed"] == 2


def test_e2beval_eval_writes_one_run_per_invocation(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"tests": [
        {"id": "factorial", "output": "def factorial(n):\n    return 1 if n < 2 else n * factorial(n - 1)\n",
         "vars": {"function_name": "factorial", "test_input": "5", "expected_output": "120"}},
        {"id": "wrong", "output": "def f(x):\n    return x\n",
         "vars": {"function_name": "f", "test_input": "1", "expected_output": "2"}},
    ]}))
    env = dict(os.environ, PROMPTFOO_RESULTS_DIR=str(tmp_path / "metrics"))
    env.pop("E2BEVAL_RUN_ID", None)
    for _ in range(3):
        result = run_cli("eval", str(suite), cwd=tmp_path, env=env)
        assert result.returncode == 1, result.stderr
        # The report `eval` writes is of the run it just did, not of everything in the directory.
        table = [line for line in (tmp_path / "promptfoo_report.md").read_text().splitlines() if line.startswith("|")]
        assert len(table) == 2 + 2, table
    assert sorted(_run_ids(tmp_path / "metrics").values()) == [2, 2, 2]
    report = _report_json(str(tmp_path / "metrics"))
    assert report["summary"]["total"] == 2 and len(report["runs"]["available"]) == 3

    named = run_cli("eval", str(suite), cwd=tmp_path, env=dict(env, E2BEVAL_RUN_ID="nightly-42"))
    assert named.returncode == 1 and "run nightly-42" in named.stdout
    assert _report_json(str(tmp_path / "metrics"), "--run", "nightly-42")["summary"]["total"] == 2


def test_python_report_api_takes_the_same_run_options(tmp_path: Path) -> None:
    import e2beval
    from e2beval.report import load_report, render_report

    metrics = tmp_path / "metrics"
    e2beval.write_metrics("t", "p", "m", True, 0.1, results_dir=str(metrics), run_id="first")
    e2beval.write_metrics("t", "p", "m", False, 0.1, results_dir=str(metrics), run_id="second")
    assert load_report(metrics)["runs"]["shown"] == ["second"]
    assert load_report(metrics, run="first")["summary"]["passed"] == 1
    assert load_report(metrics, all_runs=True)["summary"]["total"] == 2
    assert "Showing run second, the latest of 2 runs" in render_report(metrics)
    with pytest.raises(ValueError, match="not both"):
        load_report(metrics, run="first", all_runs=True)
    with pytest.raises(e2beval.InputError, match="no run 'third'"):
        load_report(metrics, run="third")

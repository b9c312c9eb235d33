"""The assertion's JavaScript entry (e2beval_assert.cjs) through the real `promptfoo eval`: a test whose
configuration is wrong (a typo in `config:`, vars that describe no test) is an ERROR to promptfoo — the Python
assertion can only make it a failed test — and every other answer is graded exactly as the Python assertion
grades it. Each case runs twice in one eval, once per entry, on the same recorded answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _report_support import run_cli
from _support import PromptfooRun, require_importable_e2beval, run_promptfoo

ADD = "```python\ndef add(a, b):\n    return a + b\n```"
VARS = {"function_name": "add", "test_cases": [{"input": "1, 2", "expected": "3"}, {"input": "2, 2", "expected": "4"}]}

# case -> (answer, vars, assertion config)
CASES = {
    "correct": (ADD, VARS, None),
    "wrong": ("```python\ndef add(a, b):\n    return a * b\n```", VARS, None),  # 2*2 == 4: one case of two
    "unsafe": ("```python\nimport os\nos.system('id')\ndef add(a, b):\n    return a + b\n```", VARS, None),
    "raises": ("```python\ndef add(a, b):\n    raise ValueError('no')\n```", VARS, None),
    "no code": ("I cannot write that function.", VARS, None),
    "config typo": (ADD, VARS, {"timout": 5}),
    "vars describe no test": (ADD, {"function_name": "add"}, None),
}
ERROR_CASES = ("config typo", "vars describe no test")
PROMPTFOO_ERROR, PROMPTFOO_ASSERT = 2, 1  # promptfoo's ResultFailureReason


def _assertion(kind: str, config) -> dict:
    assertion = ({"type": "python", "value": "file://e2beval_assert.py"} if kind == "py"
                 else {"type": "javascript", "value": "file://e2beval_assert.cjs"})
    if config is not None:
        assertion["config"] = config
    return assertion


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PromptfooRun:
    require_importable_e2beval()
    work = tmp_path_factory.mktemp("js-assertion")
    # The file as a user gets it from the installed package.
    written = subprocess.run([sys.executable, "-m", "e2beval.promptfoo_js", "--write", str(work)],
                             capture_output=True, text=True, timeout=60)
    assert written.returncode == 0, f"`python -m e2beval.promptfoo_js --write` failed:\n{written.stderr}"
    assert (work / "e2beval_assert.cjs").is_file()
    (work / "e2beval_assert.py").write_text("from e2beval.promptfoo import get_assert  # noqa: F401\n", encoding="utf-8")
    tests = [{"description": f"{kind}: {case}", "vars": {**vars_, "completion": answer}, "assert": [_assertion(kind, config)]}
             for case, (answer, vars_, config) in CASES.items() for kind in ("py", "js")]
    config = {"prompts": ["{{completion}}"], "providers": [{"id": "echo", "label": "recorded"}], "tests": tests}
    config_path = work / "promptfooconfig.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return run_promptfoo(config_path, work, "--max-concurrency", "2", timeout_s=300)


def test_a_config_typo_is_an_error_with_the_js_entry(run: PromptfooRun) -> None:
    row = run.row("js: config typo")
    assert row["success"] is False
    assert row["failureReason"] == PROMPTFOO_ERROR, json.dumps(row, indent=1)[:3000]
    assert row["error"].startswith("Invalid e2beval config: unknown key(s) timout; valid keys: backend, limits, timeout"), row["error"]
    bad_vars = run.row("js: vars describe no test")
    assert bad_vars["failureReason"] == PROMPTFOO_ERROR and bad_vars["error"].startswith("Invalid test:"), bad_vars["error"]
    # promptfoo's own count: exactly those two rows are errors; the Python entry's are failed tests.
    assert run.stats["errors"] == 2, (run.stats, run.log)
    assert "2 errors" in run.proc.stdout, run.log
    for case in ERROR_CASES:
        python_row = run.row(f"py: {case}")
        assert python_row["failureReason"] == PROMPTFOO_ASSERT, python_row
        assert row_reason(python_row) == run.row(f"js: {case}")["error"]  # the same message both ways


def row_reason(row: dict) -> str:
    return row["gradingResult"]["componentResults"][0]["reason"]


def _graded(row: dict) -> dict:
    own = row["gradingResult"]["componentResults"][0]
    metadata = own.get("metadata", {})
    return {
        "success": row["success"], "score": row["score"], "failureReason": row["failureReason"],
        "reason": own["reason"], "pass": own["pass"], "own score": own["score"],
        "cases": [(case["pass"], case["reason"]) for case in own.get("componentResults", [])],
        "named": {name: own["namedScores"][name] for name in ("correctness", "safety")},
        "metadata": {key: metadata.get(key) for key in ("verdict", "outcome", "code", "findings", "language")},
    }


@pytest.mark.parametrize("case", [case for case in CASES if case not in ERROR_CASES])
def test_the_js_entry_grades_as_the_python_assertion(run: PromptfooRun, case: str) -> None:
    python, javascript = _graded(run.row(f"py: {case}")), _graded(run.row(f"js: {case}"))
    assert javascript == python
    assert run.row(f"js: {case}")["gradingResult"]["componentResults"][0]["assertion"]["type"] == "javascript"


def test_the_answers_get_the_verdicts_they_deserve(run: PromptfooRun) -> None:
    # So that "the same both ways" is not "equally broken both ways".
    seen = {case: (run.row(f"js: {case}")["success"], run.row(f"js: {case}")["score"]) for case in CASES}
    assert seen == {"correct": (True, 1.0), "wrong": (False, 0.5), "unsafe": (False, 0.0), "raises": (False, 0.0),
                    "no code": (False, 0.0), "config typo": (False, 0.0), "vars describe no test": (False, 0.0)}
    assert run_reason(run, "unsafe").startswith("Unsafe pattern detected in generated code")
    assert run.stats["successes"] == 2 and run.stats["failures"] == 10, run.stats


def run_reason(run: PromptfooRun, case: str) -> str:
    return row_reason(run.row(f"js: {case}"))


def test_e2beval_report_counts_the_errors_promptfoo_counts(run: PromptfooRun) -> None:
    report = run_cli("report", str(run.out_json), "--format", "json", "-o", "-")
    assert report.returncode == 0, report.stderr
    rows = {row["task"]: row for row in json.loads(report.stdout)["rows"]}
    errors = {task for task, row in rows.items() if row.get("error")}
    # Both entries' config errors are errors to e2beval; with the JS entry promptfoo agrees.
    assert errors == {f"{kind}: {case}" for kind in ("py", "js") for case in ERROR_CASES}, errors
    assert rows["js: config typo"]["outcome"] == "invalid_test", rows["js: config typo"]
    metrics = json.loads(run_cli("report", str(run.metrics_dir), "--format", "json", "-o", "-").stdout)
    assert metrics["summary"]["total"] == len(CASES) * 2 and metrics["summary"]["errors"] == 4, metrics["summary"]


def test_a_python_that_cannot_start_is_a_clear_error(tmp_path: Path) -> None:
    require_importable_e2beval()
    path = subprocess.run([sys.executable, "-m", "e2beval.promptfoo_js", "--path"], capture_output=True, text=True,
                          timeout=60)
    assert path.returncode == 0, path.stderr
    shipped = Path(path.stdout.strip())
    (tmp_path / "answer.txt").write_text("{{completion}}", encoding="utf-8")
    config = {"prompts": ["file://answer.txt"], "providers": ["echo"],
              "tests": [{"description": "no python", "vars": {**VARS, "completion": ADD},
                         "assert": [{"type": "javascript", "value": f"file://{shipped}"}]}]}
    config_path = tmp_path / "promptfooconfig.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    missing = str(tmp_path / "no-such-python")
    run = run_promptfoo(config_path, tmp_path, E2BEVAL_PYTHON=missing)
    row = run.row("no python")
    assert row["failureReason"] == PROMPTFOO_ERROR, row
    assert row["error"] == (f"e2beval assertion: no Python found: tried '{missing}' (from $E2BEVAL_PYTHON); set "
                            "E2BEVAL_PYTHON (or PROMPTFOO_PYTHON) to the absolute path of a Python that has e2beval "
                            "installed (check with: \"$E2BEVAL_PYTHON\" -c \"import e2beval.promptfoo\")"), row["error"]

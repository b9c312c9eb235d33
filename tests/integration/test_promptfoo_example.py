"""Run the real promptfoo CLI on examples/promptfoo/ and check e2beval's grading end to end.

promptfoo (npm, with its own Node 22) is installed project-locally by scripts/setup.sh under
tools/promptfoo/node_modules. promptfoo calls examples/promptfoo/e2beval_assert.py in a new
`$PROMPTFOO_PYTHON` process per test, so the interpreter running pytest must have e2beval installed.
"""

from __future__ import annotations

import json

import pytest
from _support import REPO, PromptfooRun, require_importable_e2beval, run_promptfoo

EXAMPLE_DIR = REPO / "examples" / "promptfoo"
CONFIG = EXAMPLE_DIR / "promptfooconfig.yaml"
PROMPTFOO_TIMEOUT_S = 300

UNSAFE_PREFIX = "Unsafe pattern detected in generated code"

# description -> (pass, score, prefix of the assertion's reason); the order of the YAML file.
EXPECTED = {
    "factorial(5) -> 120": (True, 1.0, "Correct output: 120"),
    "is_palindrome('racecar') -> True": (True, 1.0, "Correct output: True"),
    "find_largest([1, 5, 3, 9, 2]) -> 9": (True, 1.0, "Correct output: 9"),
    "read_file('/etc/passwd') is refused": (False, 0.0, UNSAFE_PREFIX),
    "factorial(-3) raises ValueError": (True, 1.0, "Expected error: ValueError"),
    "reverse_string('hello') -> olleh (wrong answer)": (False, 0.0, "Expected olleh, got hello"),
    "factorial test_cases 0->1, 5->120, 7->5040": (True, 1.0, None),
    "is_palindrome testCode/expectedOutput": (True, 1.0, "Correct output"),
}
MULTI_CASE = "factorial test_cases 0->1, 5->120, 7->5040"
MULTI_CASE_OUTPUTS = ["1", "120", "5040"]


@pytest.fixture(scope="module")
def promptfoo_run(tmp_path_factory: pytest.TempPathFactory) -> PromptfooRun:
    require_importable_e2beval()
    return run_promptfoo(CONFIG, tmp_path_factory.mktemp("promptfoo"), timeout_s=PROMPTFOO_TIMEOUT_S)


def _own_result(row: dict) -> dict:
    """The e2beval assertion's own GradingResult inside a test row.

    promptfoo's test-level gradingResult.componentResults is flattened: for each assertion its
    result (carrying its nested componentResults), followed by copies of the nested results, each
    tagged with the parent's `assertion`. The config has one assertion, so its result comes first.
    """
    components = row["gradingResult"]["componentResults"]
    assert components, json.dumps(row["gradingResult"], indent=1)
    own = components[0]
    assert own["assertion"]["type"] == "python", json.dumps(components, indent=1)
    assert own["assertion"]["value"] == "file://e2beval_assert.py", json.dumps(components, indent=1)
    return own


def test_exit_code_signals_failures(promptfoo_run: PromptfooRun) -> None:
    # Two cases fail on purpose, so promptfoo's default exit code for failed tests is expected.
    assert promptfoo_run.proc.returncode == 100, promptfoo_run.log


def test_stats(promptfoo_run: PromptfooRun) -> None:
    stats = promptfoo_run.stats
    assert (stats["successes"], stats["failures"], stats["errors"]) == (6, 2, 0), promptfoo_run.log
    assert sorted(row["testCase"]["description"] for row in promptfoo_run.rows) == sorted(EXPECTED)
    assert len(promptfoo_run.rows) == len(EXPECTED)


@pytest.mark.parametrize("description", list(EXPECTED))
def test_case_verdict(promptfoo_run: PromptfooRun, description: str) -> None:
    expected_pass, expected_score, reason_prefix = EXPECTED[description]
    row = promptfoo_run.row(description)
    grading = row["gradingResult"]
    detail = json.dumps(grading, indent=1)

    assert row["success"] is expected_pass, detail
    assert grading["pass"] is expected_pass, detail
    assert grading["score"] == pytest.approx(expected_score), detail
    # The echo provider replays the recorded completion unchanged (modulo surrounding whitespace).
    assert row["response"]["output"].strip() == row["vars"]["completion"].strip()

    own = _own_result(row)
    assert own["pass"] is expected_pass, detail
    assert own["score"] == pytest.approx(expected_score), detail
    assert isinstance(own.get("namedScores", {}), dict), detail
    if reason_prefix is not None:
        assert own["reason"].startswith(reason_prefix), detail
        if not expected_pass:  # a failing test carries the assertion's reason at the top level
            assert grading["reason"].startswith(reason_prefix), detail
    # One component per test case; a refused answer runs no case (so it may report none).
    cases = own.get("componentResults", [])
    if reason_prefix != UNSAFE_PREFIX:
        assert cases, detail
    assert all(c["pass"] is expected_pass for c in cases), detail
    assert len(grading["componentResults"]) == 1 + len(cases), detail


def test_unsafe_reason_names_the_pattern(promptfoo_run: PromptfooRun) -> None:
    own = _own_result(promptfoo_run.row("read_file('/etc/passwd') is refused"))
    detail = own["reason"][len(UNSAFE_PREFIX):].strip(" :-\n")
    assert detail, f"no detail after {UNSAFE_PREFIX!r}: {own['reason']!r}"


def test_multi_case_component_results(promptfoo_run: PromptfooRun) -> None:
    row = promptfoo_run.row(MULTI_CASE)
    own = _own_result(row)
    cases = own["componentResults"]
    detail = json.dumps(own, indent=1)
    assert len(cases) == len(MULTI_CASE_OUTPUTS), detail
    for case, expected in zip(cases, MULTI_CASE_OUTPUTS):
        assert case["pass"] is True, detail
        assert case["score"] == pytest.approx(1.0), detail
        assert f"Correct output: {expected}" in case["reason"], detail
    # promptfoo appends the per-case results after the assertion's own result.
    flattened = row["gradingResult"]["componentResults"]
    assert len(flattened) == 1 + len(MULTI_CASE_OUTPUTS), detail


def test_metrics_written(promptfoo_run: PromptfooRun) -> None:
    files = sorted(promptfoo_run.metrics_dir.glob("*.json"))
    assert len(files) >= len(EXPECTED), f"metrics files in {promptfoo_run.metrics_dir}: {files}"
    records = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    for record in records:
        for key in ("task_id", "provider", "model", "success", "runtime_s", "timestamp"):
            assert key in record, record
        assert isinstance(record["success"], bool), record
        assert record["runtime_s"] >= 0, record
    assert {r["success"] for r in records} == {True, False}

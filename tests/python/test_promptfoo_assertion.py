"""get_assert as promptfoo calls it: GradingResult shape, componentResults, config validation, metrics."""

import json

import pytest

from e2beval.promptfoo import get_assert

ANSWER = "```python\ndef add(a, b):\n    return a + b\n```"


@pytest.fixture(autouse=True)
def results_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PROMPTFOO_RESULTS_DIR", str(tmp_path / "metrics"))
    return tmp_path / "metrics"


def context(vars, config=None):
    return {"vars": vars, "config": config, "provider": {"id": "echo", "label": "recorded"}, "test": {"description": "add"}}


def test_grading_result_with_one_component_per_case(results_dir):
    result = get_assert(
        ANSWER,
        context({"function_name": "add", "test_cases": [{"input": "1, 2", "expected": "3"}, {"input": "2, 2", "expected": "5"}]}),
    )
    assert result["pass"] is False
    assert result["score"] == 0.5
    assert result["reason"].startswith("1 of 2 test cases passed")
    assert [c["pass"] for c in result["componentResults"]] == [True, False]
    assert result["componentResults"][1]["reason"] == "2, 2: Expected 5, got 4"
    assert result["namedScores"]["correctness"] == 0.5
    assert result["namedScores"]["safety"] == 1.0
    files = list(results_dir.glob("metrics_*.json"))
    assert len(files) == 1
    record = json.loads(files[0].read_text())
    assert record["task_id"] == "add" and record["success"] is False and record["provider"] == "recorded"


def test_unsafe_code_fails_with_the_tutorial_reason():
    result = get_assert("```python\nimport subprocess\ndef add(a, b):\n    return a + b\n```",
                        context({"function_name": "add", "test_input": "1, 2", "expected_output": "3"}))
    assert result["pass"] is False
    assert result["reason"].startswith("Unsafe pattern detected in generated code")
    assert result["namedScores"]["safety"] == 0.0


def test_scan_can_be_turned_off_in_config():
    result = get_assert("```python\nimport subprocess\ndef add(a, b):\n    return a + b\n```",
                        context({"function_name": "add", "test_input": "1, 2", "expected_output": "3"}, {"scan": False}))
    assert result["pass"] is True


def test_unknown_config_keys_are_an_error_listing_the_valid_ones():
    result = get_assert(ANSWER, context({"function_name": "add", "test_input": "1, 2", "expected_output": "3"}, {"timout": 3}))
    assert result["pass"] is False
    assert "unknown key(s) timout" in result["reason"] and "timeout" in result["reason"]


def test_bad_vars_and_bad_output_never_crash():
    assert get_assert(ANSWER, context({"function_name": "add"}))["reason"].startswith("Invalid test:")
    empty = get_assert("", context({"function_name": "add", "test_input": "1, 2", "expected_output": "3"}))
    assert empty["pass"] is False and "No Python function named add found" in empty["reason"]
    nul = get_assert("```python\ndef add(a, b):\n    return a + b\0\n```",
                     context({"function_name": "add", "test_input": "1, 2", "expected_output": "3"}))
    assert nul["pass"] is False and "NUL" in nul["reason"]
    surrogate = get_assert("\udc80", context({"function_name": "add", "test_input": "1, 2", "expected_output": "3"}))
    assert surrogate["pass"] is False and "UTF-8" in surrogate["reason"]

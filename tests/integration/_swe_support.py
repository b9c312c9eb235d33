"""Shared by the SWE tests: the fixtures (scripts/swe_fixtures.py: two real PyPI projects with a deliberate bug
each, downloaded once and cached under build/swe-fixtures) and the verdict each recorded prediction must get."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES_OUT = REPO / "build" / "swe-fixtures"


def build_fixtures() -> Path:
    subprocess.run([sys.executable, str(REPO / "scripts" / "swe_fixtures.py"), "--out", str(FIXTURES_OUT)],
                   check=True, timeout=600)
    return FIXTURES_OUT


def expected_verdicts(out: Path) -> dict:
    """instance_id -> kind -> {status, resolution, refused?, applied?, apply_step?, suite_completed?, ...}."""
    return json.loads((out / "expected.json").read_text())


def check_verdict(verdict: dict, expected: dict, where: str) -> None:
    """The parts of a verdict (an `e2beval swe` report) that the fixture's expectation names."""
    assert verdict["status"] == expected["status"], (where, verdict["status"], verdict.get("refused"), verdict.get("error"))
    assert verdict["resolution"] == expected["resolution"], (where, verdict["resolution"], verdict["tests_status"])
    if "refused" in expected:
        assert verdict["refused"] and expected["refused"] in verdict["refused"], (where, verdict["refused"])
        assert not verdict["patch_applied"], where
    else:
        assert verdict["refused"] is None, (where, verdict["refused"])
    if "applied" in expected:
        assert verdict["patch_applied"] == expected["applied"], (where, verdict["apply_log"][-2000:])
    if "apply_step" in expected:
        assert verdict["apply_step"] == expected["apply_step"], (where, verdict["apply_log"][-2000:])
    if "suite_completed" in expected:
        assert verdict["suite_completed"] == expected["suite_completed"], (where, verdict["integrity"])
    if expected.get("pass_to_pass_failures"):
        assert verdict["tests_status"]["PASS_TO_PASS"]["failure"], where
        assert not verdict["tests_status"]["FAIL_TO_PASS"]["failure"], where

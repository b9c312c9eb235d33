"""Shared by the SWE tests: the fixtures (scripts/swe_fixtures.py: two real PyPI projects with a deliberate bug
each, downloaded once and cached under build/swe-fixtures) and the verdict each recorded prediction must get."""

from __future__ import annotations

import fcntl
import hashlib
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES_OUT = REPO / "build" / "swe-fixtures"


def _fixture_inputs_digest() -> str:
    """What the fixtures are made from: the script and every file under tests/swe/fixtures."""
    digest = hashlib.sha256()
    for path in [REPO / "scripts" / "swe_fixtures.py", *sorted((REPO / "tests" / "swe" / "fixtures").rglob("*"))]:
        if path.is_file():
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_fixtures() -> Path:
    """Builds the fixtures unless they are built from the same inputs. Test modules on other pytest-xdist workers
    call this too: the first builds under an exclusive lock, the others wait for it and then find them built (a
    second build while another module's test reads the repositories would replace them under it)."""
    FIXTURES_OUT.parent.mkdir(parents=True, exist_ok=True)
    stamp = FIXTURES_OUT / ".built-from"
    with open(FIXTURES_OUT.parent / "swe-fixtures.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wanted = _fixture_inputs_digest()
        if not (stamp.exists() and stamp.read_text() == wanted):
            stamp.unlink(missing_ok=True)
            subprocess.run([sys.executable, str(REPO / "scripts" / "swe_fixtures.py"), "--out", str(FIXTURES_OUT)],
                           check=True, timeout=600)
            stamp.write_text(wanted)
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

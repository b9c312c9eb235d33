"""examples/swe/ through the real `promptfoo eval` (`bash examples/swe/run.sh`): every recorded answer of the
fixtures is graded by e2beval's SWE assertion and gets the verdict tests/swe/fixtures/projects.json names."""

from __future__ import annotations

import json
import os
import subprocess

from _support import REPO, promptfoo_executable, require_importable_e2beval
from _swe_support import build_fixtures, expected_verdicts


def test_swe_example_grades_every_recorded_answer(tmp_path):
    require_importable_e2beval()
    promptfoo_executable()
    fixtures = build_fixtures()
    output = tmp_path / "results.json"
    env = {**os.environ, "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo-home")}
    result = subprocess.run(["bash", str(REPO / "examples" / "swe" / "run.sh"), "-o", str(output)], capture_output=True,
                            text=True, timeout=600, env=env)
    assert result.returncode == 100, result.stdout[-3000:] + result.stderr[-3000:]  # some answers must fail
    results = json.loads(output.read_text())["results"]["results"]
    expected = expected_verdicts(fixtures)
    assert len(results) == sum(len(kinds) for kinds in expected.values())
    for row in results:
        instance_id, kind = row["vars"]["instance_id"], row["vars"]["kind"]
        want = expected[instance_id][kind]
        grading = row["gradingResult"]
        # promptfoo puts a failed assertion's reason in `error`; a crashed assertion would say "Error running".
        assert "Error running" not in (row.get("error") or ""), (kind, row.get("error"))
        assert row["success"] == (want["status"] == "resolved"), (instance_id, kind, grading["reason"])
        named = grading["namedScores"]
        assert named["resolved"] == (1.0 if want["status"] == "resolved" else 0.0), (instance_id, kind)
        assert named["partial"] == (1.0 if want["resolution"] == "PARTIAL" else 0.0), (instance_id, kind, grading["reason"])
        assert named["refused"] == (1.0 if "refused" in want else 0.0), (instance_id, kind, grading["reason"])
        if "suite_completed" in want:
            assert named["suite_completed"] == float(want["suite_completed"]), (instance_id, kind)
        if not row["success"]:
            assert grading["reason"].startswith(f"{want['status']} ({want['resolution']})"), (instance_id, kind, grading["reason"])
        if want["resolution"] == "PARTIAL":
            assert 0 < row["score"] < 1, (instance_id, kind, row["score"])

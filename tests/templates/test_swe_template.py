"""`e2beval swe --template NAME`: the tests of a SWE instance run with a template's virtualenv (its bin first on
the session's PATH), not with --python's interpreter (docs/swe.md, "The tests' Python")."""
import json
import subprocess
import sys
from pathlib import Path

from .conftest import REPO, cli, template

sys.path.insert(0, str(REPO / "tests" / "integration"))
from _swe_support import build_fixtures  # noqa: E402

TOOLZ = "toolz__interpose-frequencies"


def test_swe_runs_the_tests_with_the_templates_python(template_cache, tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("pytest==9.0.1\n")  # not the project's own pytest: the log shows which one ran
    built = template("build", "swe-pytest", "-r", str(requirements))
    assert built.returncode == 0, built.stdout + built.stderr
    fixtures = build_fixtures()
    instance = next(json.loads(line) for line in (fixtures / "instances.jsonl").read_text().splitlines()
                    if json.loads(line)["instance_id"] == TOOLZ)
    instance["test_cmd"] = "python -m pytest -rA --tb=short -p no:cacheprovider"
    (tmp_path / "instances.jsonl").write_text(json.dumps(instance) + "\n")
    good = (REPO / "tests" / "swe" / "fixtures" / "toolz" / "predictions" / "good.diff").read_text()
    (tmp_path / "predictions.jsonl").write_text(
        json.dumps({"instance_id": TOOLZ, "model_name_or_path": "good", "model_patch": good}) + "\n")
    result = subprocess.run([cli(), "swe", "--instances", str(tmp_path / "instances.jsonl"), "--predictions",
                             str(tmp_path / "predictions.jsonl"), "--template", "swe-pytest", "--output-dir",
                             str(tmp_path / "out")], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "out" / "good" / TOOLZ / "report.json").read_text())
    assert report["status"] == "resolved", report
    # pytest's header names the interpreter and pytest that ran: the template's, not this test's 9.2.0.
    assert "pytest-9.0.1" in report["test_log"], report["test_log"][:2000]

    unknown = subprocess.run([cli(), "swe", "--instances", str(tmp_path / "instances.jsonl"), "--predictions",
                              str(tmp_path / "predictions.jsonl"), "--template", "no-such-template"],
                             capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 2, unknown
    assert "no-such-template" in unknown.stderr and "swe-pytest" in unknown.stderr, unknown.stderr

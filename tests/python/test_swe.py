"""e2beval.swe, the Python face of SWE-style repair evaluation, on the real fixtures (scripts/swe_fixtures.py):
evaluate_patch on a raw model answer, on a patch that deletes everything (applied, then no test runs), on a
tarball and a bundle repository; validate_instance; the helpers."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from e2beval import swe

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "integration"))
from _swe_support import build_fixtures  # noqa: E402


@pytest.fixture(scope="module")
def fixtures():
    out = build_fixtures()
    instances = {item["instance_id"]: item for item in swe.read_jsonl(str(out / "instances.jsonl"))}
    predictions = {}
    for item in swe.read_jsonl(str(out / "predictions.jsonl")):
        predictions[(item["instance_id"], item["model_name_or_path"])] = item["model_patch"]
    return out, instances, predictions


INFLECTION = "inflection__ordinal-teens-and-negatives"
TOOLZ = "toolz__interpose-frequencies"


def test_a_raw_model_answer_is_extracted_applied_and_resolves(fixtures):
    _, instances, predictions = fixtures
    answer = predictions[(INFLECTION, "good_raw_answer")]
    assert answer.startswith("The bug is in")  # prose and a fence around the diff
    verdict = swe.evaluate_patch(instances[INFLECTION], answer, model_name_or_path="raw", protect_tests=True)
    assert verdict["status"] == "resolved" and verdict["resolution"] == "FULL"
    assert verdict["patch"].startswith("diff --git a/inflection/__init__.py")
    assert "+    if 10 <= number % 100 <= 13:" in verdict["applied_diff"]
    assert verdict["suite_completed"] and verdict["integrity"] == []
    assert verdict["test_statuses"]["test_inflection.py::test_ordinal_of_teens_is_th[-112]"] == "PASSED"
    assert set(verdict["timings_s"]) == {"session_start", "copy_in", "apply", "tests", "total"}


def test_a_patch_that_deletes_everything_is_applied_in_the_sandbox_and_resolves_nothing(fixtures):
    out, instances, predictions = fixtures
    verdict = swe.evaluate_patch(instances[INFLECTION], predictions[(INFLECTION, "deletes_everything")])
    assert verdict["patch_applied"] and verdict["apply_step"] == "git apply --verbose"
    assert verdict["resolution"] == "NONE" and verdict["status"] == "unresolved"
    assert "deleted file mode" in verdict["applied_diff"]
    # Only the sandbox's copy went: the host's repository is whole.
    assert (out / "repos" / "inflection" / "inflection" / "__init__.py").exists()


def test_a_tarball_repository_without_git_is_taken_as_it_is(fixtures, tmp_path):
    out, instances, predictions = fixtures
    checkout = out / "repos" / "inflection"
    tree = tmp_path / "inflection"
    subprocess.run(f"git -C {checkout} archive --format=tar --prefix=inflection/ {instances[INFLECTION]['base_commit']} | tar -x -C {tmp_path}",
                   shell=True, check=True)
    archive = tmp_path / "inflection.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tree, arcname="inflection-buggy")
    instance = dict(instances[INFLECTION], repo=str(archive), base_commit="")
    verdict = swe.evaluate_patch(instance, predictions[(INFLECTION, "partial")])
    assert verdict["status"] == "unresolved" and verdict["resolution"] == "PARTIAL", verdict["error"]


def test_validate_instance_on_a_bundle_repository(fixtures):
    _, instances, _ = fixtures
    assert instances[TOOLZ]["repo"].endswith(".bundle")
    validation = swe.validate_instance(instances[TOOLZ])
    assert validation["valid"], validation["problems"]
    assert validation["gold"]["resolution"] == "FULL"
    assert sorted(t["test"] for t in validation["empty"]["tests_status"]["FAIL_TO_PASS"]["failure"]) == sorted(instances[TOOLZ]["FAIL_TO_PASS"])


def test_helpers_extract_and_refuse():
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert swe.extract_diff("Fix:\n```diff\n" + diff + "```\nDone.") == diff
    assert swe.refuse_reason(diff) is None
    assert "test file" in swe.refuse_reason(diff, ["x.py"])
    with pytest.raises(ValueError, match="give one"):
        swe.evaluate_patch({"instance_id": "x"}, diff, python=sys.executable, template="t")


def test_a_patch_that_edits_the_tests_gains_nothing_even_unprotected(fixtures):
    # Without protect_tests the patch applies, but the instance's test files are checked out again before the
    # tests run (as SWE-bench does), so the real tests grade the untouched code.
    _, instances, predictions = fixtures
    for instance_id in (INFLECTION, TOOLZ):
        verdict = swe.evaluate_patch(instances[instance_id], predictions[(instance_id, "edits_test")])
        assert verdict["patch_applied"], verdict
        assert "test files restored to the instance's before the tests:" in verdict["apply_log"], verdict["apply_log"]
        assert verdict["status"] == "unresolved" and verdict["resolution"] == "NONE", verdict


FORCE_PASS_CONFTEST = '''diff --git a/conftest.py b/conftest.py
new file mode 100644
--- /dev/null
+++ b/conftest.py
@@ -0,0 +1,8 @@
+import pytest
+
+
+@pytest.hookimpl(hookwrapper=True)
+def pytest_runtest_makereport(item, call):
+    outcome = yield
+    report = outcome.get_result()
+    report.outcome = "passed"
'''


def test_a_patch_that_adds_a_conftest_to_force_passes_gains_nothing(fixtures):
    # A conftest.py hook can rewrite every test's outcome before any report sees it (SWE-bench's log parsing is
    # fooled the same way): conftest.py and pytest.ini files the patch adds, changes or deletes are put back as
    # the instance has them before the tests run.
    _, instances, _ = fixtures
    verdict = swe.evaluate_patch(instances[INFLECTION], FORCE_PASS_CONFTEST)
    assert verdict["patch_applied"], verdict
    assert "pytest configuration restored to the instance's before the tests: conftest.py" in verdict["apply_log"], \
        verdict["apply_log"]
    assert verdict["status"] == "unresolved" and verdict["resolution"] == "NONE", verdict

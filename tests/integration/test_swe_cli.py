"""`e2beval swe` on real fixtures: two projects from PyPI sdists with a deliberate bug each, and the recorded
predictions a model gives (good, fuzzy-good, partial, does not apply, breaks another test, edits the test,
escapes with ../ or a symlink, prints fake PASSED lines and exits 0, deletes everything). Each must get the
verdict tests/swe/fixtures/projects.json names, in the report file and in the printed summary."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _support import find_cli
from _swe_support import build_fixtures, check_verdict, expected_verdicts


@pytest.fixture(scope="module")
def fixtures():
    return build_fixtures()


def run_swe(*arguments, timeout=600):
    return subprocess.run([find_cli(), "swe", "--python", sys.executable, *arguments], capture_output=True, text=True,
                          timeout=timeout)


def test_every_recorded_prediction_gets_its_verdict(fixtures, tmp_path):
    result = run_swe("--instances", str(fixtures / "instances.jsonl"), "--predictions", str(fixtures / "predictions.jsonl"),
                     "--protect-tests", "--jobs", "2", "--output-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    expected = expected_verdicts(fixtures)
    resolved = []
    for instance_id, kinds in expected.items():
        for kind, want in kinds.items():
            report = json.loads((tmp_path / kind / instance_id / "report.json").read_text())
            check_verdict(report, want, f"{instance_id}/{kind}")
            if want["status"] == "resolved":
                resolved.append(f"{instance_id}/{kind}")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert sorted(summary["resolved_ids"]) == sorted(resolved)
    assert summary["error_instances"] == 0 and summary["empty_patch_instances"] == 0
    assert summary["completed_instances"] == sum(len(kinds) for kinds in expected.values())
    # The printed summary, as the harness prints it; progress lines on stderr.
    assert f"Predictions resolved: {len(resolved)}\n" in result.stdout
    assert "Predictions error: 0\n" in result.stdout
    total = summary["completed_instances"]
    assert f"[{total}/{total}]" in result.stderr


def test_fake_passed_lines_are_caught_not_believed(fixtures, tmp_path):
    """The patched code prints PASSED for every failing test and exits 0 before pytest reports: the log says
    pass, the exit code says pass, and the verdict is still NONE because pytest's own report never came."""
    result = run_swe("--instances", str(fixtures / "instances.jsonl"), "--predictions", str(fixtures / "predictions.jsonl"),
                     "--instance-id", "toolz__interpose-frequencies", "--output-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "fake_passed" / "toolz__interpose-frequencies" / "report.json").read_text())
    assert report["test_exit_code"] == 0
    assert "PASSED toolz/tests/test_itertoolz.py::test_interpose" in report["test_log"]
    assert report["suite_completed"] is False
    assert "pytest's own report was not written" in report["integrity"][0]
    assert report["resolution"] == "NONE"


def test_validate_mode_checks_gold_and_empty_patches(fixtures, tmp_path):
    result = run_swe("--instances", str(fixtures / "instances.jsonl"), "--validate", "--output-dir", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Valid: {len(expected_verdicts(fixtures))}\nInvalid: 0\n" in result.stdout
    for instance_id in expected_verdicts(fixtures):
        gold = json.loads((tmp_path / "validation" / instance_id / "gold.json").read_text())
        empty = json.loads((tmp_path / "validation" / instance_id / "empty.json").read_text())
        assert gold["resolution"] == "FULL" and gold["validation_problems"] == []
        assert empty["tests_status"]["FAIL_TO_PASS"]["success"] == []
        assert empty["tests_status"]["PASS_TO_PASS"]["failure"] == []


SWEBENCH_IDS = "inflection__ordinal-teens-and-negatives__swebench-ids"


def test_swebench_ids_cut_at_a_space_name_their_tests_and_the_gold_patch_is_full(fixtures, tmp_path):
    """SWE-bench's datasets name each test as its pytest log parser saw it, cut at the first space
    (test_humanize[employee_salary-Employee for test_humanize[employee_salary-Employee salary]), so parametrised
    tests can share an id (test_parameterize[Test). The gold patch of such an instance is FULL, and the report
    says which tests each cut id named and how the ones sharing an id were counted."""
    instance = next(json.loads(line) for line in (fixtures / "instances.jsonl").read_text().splitlines()
                    if json.loads(line)["instance_id"] == SWEBENCH_IDS)
    cut = [test for test in instance["PASS_TO_PASS"] if test.count("[") > test.count("]")]
    assert "test_inflection.py::test_humanize[employee_salary-Employee" in cut
    assert all(" " not in test for test in instance["FAIL_TO_PASS"] + instance["PASS_TO_PASS"])
    result = run_swe("--instances", str(fixtures / "instances.jsonl"), "--validate", "--instance-id", SWEBENCH_IDS,
                     "--output-dir", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    gold = json.loads((tmp_path / "validation" / SWEBENCH_IDS / "gold.json").read_text())
    assert gold["resolution"] == "FULL", gold["tests_status"]["PASS_TO_PASS"]["failure"]
    assert gold["validation_problems"] == []
    named = {entry["test"]: entry for entry in gold["cut_test_ids"]}
    assert sorted(named) == sorted(cut)
    assert all(entry["group"] == "PASS_TO_PASS" and entry["status"] == "PASSED" for entry in named.values())
    single = named["test_inflection.py::test_humanize[employee_salary-Employee"]
    assert single["shared"] is False
    assert single["tests"] == {"test_inflection.py::test_humanize[employee_salary-Employee salary]": "PASSED"}
    shared = named["test_inflection.py::test_parameterize[Test"]
    assert shared["shared"] is True and "passed only if each of them passed" in shared["counted_as"]
    assert sorted(shared["tests"]) == ["test_inflection.py::test_parameterize[Test with + sign-test-with-sign]",
                                       "test_inflection.py::test_parameterize[Test with malformed utf8 \\xa9-test-with-malformed-utf8]"]
    # Without a patch the cut ids still name their tests: FAIL_TO_PASS fails, PASS_TO_PASS passes.
    empty = json.loads((tmp_path / "validation" / SWEBENCH_IDS / "empty.json").read_text())
    assert empty["tests_status"]["FAIL_TO_PASS"]["success"] == []
    assert empty["tests_status"]["PASS_TO_PASS"]["failure"] == []


def test_validate_reports_an_instance_whose_gold_patch_does_not_fix_it(fixtures, tmp_path):
    instance = json.loads((fixtures / "instances.jsonl").read_text().splitlines()[1])
    instance["patch"] = ""  # no gold patch: the empty patch cannot resolve it
    broken = tmp_path / "instances.jsonl"
    broken.write_text(json.dumps(instance) + "\n")
    result = run_swe("--instances", str(broken), "--validate", "--output-dir", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "Invalid: 1" in result.stdout and "no gold patch" in result.stdout


def test_infrastructure_failures_are_errors_not_model_failures(fixtures, tmp_path):
    instance = json.loads((fixtures / "instances.jsonl").read_text().splitlines()[0])
    instance["base_commit"] = "0" * 40
    instances = tmp_path / "instances.jsonl"
    instances.write_text(json.dumps(instance) + "\n")
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps({"instance_id": instance["instance_id"], "model_name_or_path": "m",
                                       "model_patch": instance["patch"]}) + "\n")
    result = run_swe("--instances", str(instances), "--predictions", str(predictions), "--output-dir", str(tmp_path / "out"))
    assert result.returncode == 1
    report = json.loads((tmp_path / "out" / "m" / instance["instance_id"] / "report.json").read_text())
    assert report["status"] == "error" and "cannot read commit" in report["error"]
    assert "Predictions error: 1" in result.stdout


def test_bad_command_lines_say_what_to_do(fixtures):
    result = run_swe("--predictions", "p.jsonl")
    assert result.returncode == 2 and "--instances is required" in result.stderr
    result = run_swe("--instances", str(fixtures / "instances.jsonl"), "--predictions", str(fixtures / "predictions.jsonl"),
                     "--template", "py311")
    assert result.returncode == 2 and "--python and --template" in result.stderr

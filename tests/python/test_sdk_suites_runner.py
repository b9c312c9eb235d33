"""tests/sdk_suites (the E2B SDKs' own test suites against `e2beval serve`, docs/serve.md): the parts that need
neither the two checkouts nor PyPI — the list of deselected tests parses and docs/serve.md gives every one of its
reasons, the plugin matches node ids as the list means them, the requirements are the trees' declarations turned
into pip's, and the summary counts what JUnit XML and the deselected lists say."""
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUITES = REPO / "tests" / "sdk_suites"
sys.path.append(str(SUITES))
import sdk_requirements  # noqa: E402
import sdk_suite_plugin  # noqa: E402


def test_every_reason_of_the_list_is_in_docs_serve_md():
    entries = sdk_suite_plugin.read_not_offered()
    assert entries, "not_offered.txt lists nothing"
    serve_md = (REPO / "docs" / "serve.md").read_text(encoding="utf-8")
    for reason in sorted({reason for _, _, reason in entries}):
        assert f"| {reason} |" in serve_md, f"docs/serve.md does not list the reason: {reason}"
    assert {suite for suite, _, _ in entries} == {"e2b", "code-interpreter"}


def test_a_malformed_line_is_refused_with_its_place(tmp_path):
    listed = tmp_path / "list.txt"
    listed.write_text("## a reason\ne2b tests/x.py\nnot-a-suite tests/y.py\n")
    try:
        sdk_suite_plugin.read_not_offered(listed)
    except ValueError as error:
        assert f"{listed}:3:" in str(error) and "SUITE PATTERN" in str(error)
    else:
        raise AssertionError("a line with an unknown suite was accepted")


def test_patterns_match_files_or_single_tests():
    matches = sdk_suite_plugin.matches
    assert matches("tests/sync/sandbox_sync/test_fork.py::test_fork", "tests/*/sandbox_*/test_fork.py")
    assert matches("tests/async/sandbox_async/pty/test_resize.py::test_resize", "tests/*/sandbox_*/pty/*")
    assert matches("tests/sync/test_cwd.py::test_cwd_r", "tests/*/test_*cwd.py::test_cwd_r")
    assert not matches("tests/sync/test_cwd.py::test_cwd_python", "tests/*/test_*cwd.py::test_cwd_r")
    assert not matches("tests/sync/sandbox_sync/test_create.py::test_create", "tests/*/sandbox_*/test_create.py::test_auto_*")


def test_requirements_are_the_trees_declarations(tmp_path):
    e2b = tmp_path / "E2B" / "packages" / "python-sdk"
    e2b.mkdir(parents=True)
    (e2b / "pyproject.toml").write_text('[project]\nname = "e2b"\nversion = "2.45.1"\n'
                                        '[dependency-groups]\ndev = ["pytest>=9.0.3,<10", "ruff>=0.11.12,<0.12"]\n')
    interpreter = tmp_path / "code-interpreter" / "python"
    interpreter.mkdir(parents=True)
    (interpreter / "pyproject.toml").write_text(
        '[tool.poetry]\nname = "e2b-code-interpreter"\nversion = "2.9.1"\n'
        '[tool.poetry.group.dev.dependencies]\npytest-xdist = "^3.6.1"\npytest-dotenv = "^0.5.2"\n'
        'ruff = "^0.11.12"\nmatplotlib = { version = "^3.8.0" }\n')
    printed = subprocess.run([sys.executable, str(SUITES / "sdk_requirements.py"), str(tmp_path / "E2B"),
                              str(tmp_path / "code-interpreter")], capture_output=True, text=True, check=True)
    assert printed.stdout.split("\n")[:-1] == [
        "e2b==2.45.1", "e2b-code-interpreter==2.9.1", "pytest>=9.0.3,<10",
        "pytest-xdist>=3.6.1,<4", "pytest-dotenv>=0.5.2,<0.6", "matplotlib>=3.8.0,<4"]
    assert sdk_requirements.caret("x", "^0.0.3") == "x>=0.0.3,<0.0.4"


def test_the_summary_counts_outcomes_failures_and_deselected(tmp_path):
    (tmp_path / "e2b.xml").write_text(
        '<?xml version="1.0"?><testsuites><testsuite>'
        '<testcase classname="tests.sync.test_a" name="test_ok"/>'
        '<testcase classname="tests.sync.test_a" name="test_bad"><failure message="AssertionError: 1 == 2">x</failure></testcase>'
        '<testcase classname="tests.sync.test_b" name="test_skip"><skipped message="no"/></testcase>'
        '</testsuite></testsuites>')
    (tmp_path / "e2b.deselected.json").write_text(json.dumps({"tests/sync/test_fork.py::test_fork": "fork: no"}))
    printed = subprocess.run([sys.executable, str(SUITES / "summarize.py"), str(tmp_path), "e2b", "code-interpreter"],
                             capture_output=True, text=True, check=True).stdout
    assert "e2b: 1 passed, 1 failed, 0 errors, 1 skipped, 1 deselected (not offered)" in printed
    assert "FAILED tests/sync/test_a.py::test_bad: AssertionError: 1 == 2" in printed
    assert "deselected   1: fork: no" in printed
    assert "code-interpreter: no results" in printed
    assert printed.rstrip().endswith("1 passed, 1 failed")

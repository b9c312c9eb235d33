"""`e2beval report --format md|html|json|junit` end to end: on the metrics and the `-o` JSON of a real promptfoo
run of the tutorial example, on a crafted promptfoo output with several samples per task (pass@k) and hostile
model output, and on every kind of bad input. JUnit is parsed with xml.etree, JSON with json."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

import e2beval
from _report_support import TUTORIAL_EXPECTED, TutorialRun, run_cli, run_tutorial_example

HOSTILE = "<script>document.body.dataset.pwned=1</script>]]><!-- \x1b[31mred\x1b[0m \x00 \x07 & \"quotes\" 'single'"


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory: pytest.TempPathFactory) -> TutorialRun:
    return run_tutorial_example(tmp_path_factory.mktemp("tutorial"))


def _row(provider: tuple[str, str], task: str, test_index: int, passed: bool, reason: str, latency_ms: int = 900) -> dict:
    """One entry of promptfoo's results.results[], shaped as promptfoo 0.12x writes it for e2beval's assertion."""
    own = {
        "pass": passed,
        "score": 1.0 if passed else 0.0,
        "reason": reason,
        "namedScores": {"correctness": 1.0 if passed else 0.0, "safety": 1.0, "runtime_s": 0.05},
        "componentResults": [{"pass": passed, "score": 1.0 if passed else 0.0, "reason": f"case 1: {reason}"}],
        "assertion": {"type": "python", "value": "file://e2beval_assert.py"},
    }
    return {
        "success": passed,
        "score": 1.0 if passed else 0.0,
        "latencyMs": latency_ms,
        "promptIdx": 0,
        "testIdx": test_index,
        "failureReason": 0 if passed else 1,
        "provider": {"id": provider[1], "label": provider[0]},
        "testCase": {"description": task, "vars": {"function_name": task}},
        "vars": {"function_name": task},
        "response": {"output": f"```python\ndef {task}(x):\n    return x\n```"},
        "gradingResult": {
            "pass": passed,
            "score": 1.0 if passed else 0.0,
            "reason": "All assertions passed" if passed else reason,
            "namedScores": own["namedScores"],
            "componentResults": [own, *own["componentResults"]],
        },
    }


# provider -> task -> outcomes of its samples (promptfoo's --repeat 3)
SAMPLES = {
    ("gpt-a", "openai:gpt-a"): {"factorial": [True, True, False], "reverse_string": [False, False, True]},
    ("claude-b", "anthropic:claude-b"): {"factorial": [True, True, True], "reverse_string": [False, False, False]},
}


def _unbiased_pass_at_k(n: int, c: int, k: int) -> float:
    return 1.0 if n - c < k else 1.0 - math.comb(n - c, k) / math.comb(n, k)


@pytest.fixture(scope="module")
def crafted_out_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = []
    for provider, tasks in SAMPLES.items():
        for test_index, (task, outcomes) in enumerate(tasks.items()):
            for passed in outcomes:
                reason = "Correct output: 120" if passed else f"Expected olleh, got {HOSTILE}"
                rows.append(_row(provider, task, test_index, passed, reason))
    rows.append(
        {
            "success": False, "score": 0, "latencyMs": 30000, "promptIdx": 0, "testIdx": 2, "failureReason": 2,
            "provider": {"id": "openai:gpt-a", "label": "gpt-a"}, "testCase": {"description": "binary_search"},
            "vars": {}, "error": "API error: 500 <html>Internal Server Error</html>", "response": None,
        }
    )
    document = {
        "evalId": "eval-crafted",
        "results": {"version": 3, "timestamp": "2025-06-01T00:00:00.000Z", "results": rows,
                    "stats": {"successes": 6, "failures": 6, "errors": 1}},
        "config": {}, "metadata": {},
    }
    path = tmp_path_factory.mktemp("crafted") / "out.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _report(tmp_path: Path, source: Path, fmt: str, *extra: str) -> Path:
    output = tmp_path / f"report-{fmt}-{source.name}"
    result = run_cli("report", str(source), "--format", fmt, "-o", str(output), *extra)
    assert result.returncode == 0, result.stderr
    assert f"report: {output}" in result.stdout
    return output


# ---- the tutorial example ---------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["metrics", "out_json"])
def test_markdown_is_the_tutorial_table(tutorial: TutorialRun, tmp_path: Path, source: str) -> None:
    path = tutorial.metrics_dir if source == "metrics" else tutorial.out_json
    text = _report(tmp_path, path, "md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "| task | provider | model | success | runtime_s |", text
    table = [line for line in lines if line.startswith("|")]
    assert len(table) == 2 + len(TUTORIAL_EXPECTED), text  # only the tutorial's table starts with '|'
    rows = {}
    for line in table[2:]:
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        assert len(cells) == 5, line
        rows[cells[0]] = cells
        assert cells[1:3] == ["recorded-gpt", "echo"], line
        assert float(cells[4]) >= 0, line
    assert {task: cells[3] == "True" for task, cells in rows.items()} == TUTORIAL_EXPECTED
    assert "\n6 of 8 passed\n" in text
    assert "## Failures" in text and "Expected olleh, got hello" in text


def test_default_output_names_by_format(tutorial: TutorialRun, tmp_path: Path) -> None:
    for fmt, name in [("md", "promptfoo_report.md"), ("html", "promptfoo_report.html"), ("json", "promptfoo_report.json"),
                      ("junit", "promptfoo_report.xml")]:
        result = run_cli("report", "--results-dir", str(tutorial.metrics_dir), "--format", fmt, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert (tmp_path / name).stat().st_size > 0, fmt


def test_default_input_is_promptfoo_results_dir(tutorial: TutorialRun, tmp_path: Path) -> None:
    import os

    env = dict(os.environ, PROMPTFOO_RESULTS_DIR=str(tutorial.metrics_dir))
    result = run_cli("report", "--format", "json", "-o", "-", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["total"] == len(TUTORIAL_EXPECTED)


@pytest.mark.parametrize("source", ["metrics", "out_json"])
def test_json_summary_and_rows(tutorial: TutorialRun, tmp_path: Path, source: str) -> None:
    path = tutorial.metrics_dir if source == "metrics" else tutorial.out_json
    document = json.loads(_report(tmp_path, path, "json").read_text(encoding="utf-8"))
    assert document["source"]["kind"] == ("metrics_directory" if source == "metrics" else "promptfoo_output")
    summary = document["summary"]
    assert (summary["total"], summary["passed"], summary["failed"], summary["errors"]) == (8, 6, 2, 0)
    assert summary["pass_rate"] == pytest.approx(0.75)
    assert [(g["provider"], g["model"], g["passed"], g["total"]) for g in summary["groups"]] == [("recorded-gpt", "echo", 6, 8)]
    rows = {row["task"]: row for row in document["rows"]}
    assert {task: row["success"] for task, row in rows.items()} == TUTORIAL_EXPECTED
    refused = rows["read_file('/etc/passwd') is refused"]
    assert refused["outcome"] == "blocked", refused  # the scanner refused it; it never ran
    assert refused["reason"].startswith("Unsafe pattern detected in generated code")
    assert rows["reverse_string('hello') -> olleh (wrong answer)"]["reason"].startswith("Expected olleh, got hello")
    assert summary["outcomes"]["blocked"] == {"passed": 0, "failed": 1}
    if source == "metrics":  # the sandbox measured the peak memory of each program that ran
        assert rows["factorial(5) -> 120"]["memory_mb"] > 0
        assert refused["memory_mb"] is None
    else:  # promptfoo's output keeps the assertion's per-case results
        assert len(rows["factorial test_cases 0->1, 5->120, 7->5040"]["cases"]) == 3


@pytest.mark.parametrize("source", ["metrics", "out_json"])
def test_junit_is_valid_xml(tutorial: TutorialRun, tmp_path: Path, source: str) -> None:
    path = tutorial.metrics_dir if source == "metrics" else tutorial.out_json
    root = ElementTree.parse(_report(tmp_path, path, "junit")).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("8", "2", "0")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["recorded-gpt / echo"]
    cases = {case.get("name"): case for case in suites[0].findall("testcase")}
    assert set(cases) == set(TUTORIAL_EXPECTED)
    for name, passes in TUTORIAL_EXPECTED.items():
        failure = cases[name].find("failure")
        assert (failure is None) == passes, name
        properties = {p.get("name"): p.get("value") for p in cases[name].find("properties")}
        assert float(properties["runtime_s"]) >= 0
    assert cases["reverse_string('hello') -> olleh (wrong answer)"].find("failure").get("message").startswith(
        "Expected olleh, got hello")
    assert cases["read_file('/etc/passwd') is refused"].find("failure").get("type") == "blocked"


@pytest.mark.parametrize("source", ["metrics", "out_json"])
def test_html_is_self_contained_with_svg_charts(tutorial: TutorialRun, tmp_path: Path, source: str) -> None:
    path = tutorial.metrics_dir if source == "metrics" else tutorial.out_json
    html = _report(tmp_path, path, "html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    for chart in ["chart-pass-rate", "chart-outcomes", "chart-runtime", "chart-memory"]:
        assert f'id="{chart}"' in html
    assert html.count("<svg") >= 4
    assert html.count("<tr class=\"detail\"") == len(TUTORIAL_EXPECTED)
    # Nothing to fetch: no external script, stylesheet, image or font; the only URL is the SVG namespace.
    assert not re.search(r"<(link|img|iframe|object|embed)\b", html)
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) <= {"http://www.w3.org/2000/svg"}
    # The CSP lets exactly the page's own script run: its hash is the script's.
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in html
    assert "default-src 'none'" in html


# ---- a promptfoo output with samples, errors and hostile output -----------------------------------------------


def test_pass_at_k_per_provider_model(crafted_out_json: Path, tmp_path: Path) -> None:
    document = json.loads(_report(tmp_path, crafted_out_json, "json").read_text(encoding="utf-8"))
    groups = {g["provider"]: g for g in document["summary"]["groups"]}
    for (label, _), tasks in SAMPLES.items():
        expected = {
            k: sum(_unbiased_pass_at_k(len(o), sum(o), k) for o in tasks.values()) / len(tasks) for k in (1, 3)
        }
        got = groups[label]["pass_at_k"]
        # gpt-a's binary_search has one (errored) sample, so only pass@1 is defined for it.
        if label == "gpt-a":
            assert set(got) == {"pass@1"}, got
            assert got["pass@1"] == pytest.approx((expected[1] * len(tasks) + 0.0) / (len(tasks) + 1))
        else:
            assert got == {"pass@1": pytest.approx(expected[1]), "pass@3": pytest.approx(expected[3])}
    assert document["summary"]["errors"] == 1
    error_row = next(row for row in document["rows"] if row["task"] == "binary_search")
    assert error_row["error"].startswith("API error: 500") and error_row["runtime_s"] == pytest.approx(30.0)
    html = _report(tmp_path, crafted_out_json, "html").read_text(encoding="utf-8")
    assert "pass@1" in html and "pass@3" in html


def test_hostile_output_stays_inert(crafted_out_json: Path, tmp_path: Path) -> None:
    root = ElementTree.parse(_report(tmp_path, crafted_out_json, "junit")).getroot()
    assert [s.get("name") for s in root.findall("testsuite")] == ["gpt-a / openai:gpt-a", "claude-b / anthropic:claude-b"]
    failures = root.findall(".//failure")
    assert len(failures) == 6 and len(root.findall(".//error")) == 1
    message = failures[0].get("message")
    assert "<script>document.body.dataset.pwned=1</script>" in message  # kept as text, exactly
    assert "\x1b" not in message and "\u241b[31mred" in message  # ESC shown as its control picture
    assert "\x00" not in message and "\u2400" in message
    for suite in root.findall("testsuite"):  # samples of a task are numbered, so names are unique per suite
        names = [case.get("name") for case in suite.findall("testcase")]
        assert len(set(names)) == len(names), names
    html = _report(tmp_path, crafted_out_json, "html").read_text(encoding="utf-8")
    assert html.count("<script") == 1
    assert "&lt;script&gt;document.body.dataset.pwned=1&lt;/script&gt;" in html
    assert "&lt;html&gt;Internal Server Error" in html
    markdown = _report(tmp_path, crafted_out_json, "md").read_text(encoding="utf-8")
    assert "<script>" not in markdown and "\x1b" not in markdown


def test_python_api(crafted_out_json: Path, tutorial: TutorialRun, tmp_path: Path) -> None:
    output = tmp_path / "report.html"
    assert e2beval.report.gen_report(crafted_out_json, output, format="html") == 13
    assert "<svg" in output.read_text(encoding="utf-8")
    summary = e2beval.report.load_report(tutorial.metrics_dir)["summary"]
    assert (summary["passed"], summary["failed"]) == (6, 2)
    assert e2beval.report.render_report(tutorial.out_json, "junit").startswith("<?xml")
    # The tutorial's call still works: gen_report(out_dir, out_md) writes its table.
    markdown = tmp_path / "promptfoo_report.md"
    assert e2beval.gen_report(str(tutorial.metrics_dir), str(markdown)) == len(TUTORIAL_EXPECTED)
    assert markdown.read_text(encoding="utf-8").startswith("| task | provider | model | success | runtime_s |")
    with pytest.raises(ValueError, match="report format"):
        e2beval.report.gen_report(tutorial.metrics_dir, tmp_path / "x", format="pdf")


# ---- bad input ------------------------------------------------------------------------------------------------


def test_bad_input_is_a_clear_error(tmp_path: Path, tutorial: TutorialRun) -> None:
    missing = run_cli("report", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "run an evaluation first" in missing.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run_cli("report", str(empty), cwd=tmp_path)
    assert nothing.returncode == 2 and "no results in" in nothing.stderr
    assert not (tmp_path / "promptfoo_report.md").exists()  # no misleading empty report
    other = tmp_path / "package.json"
    other.write_text('{"name": "x", "version": "1.0.0"}')
    wrong = run_cli("report", str(other))
    assert wrong.returncode == 2 and "neither promptfoo's `-o` output" in wrong.stderr
    garbage = tmp_path / "garbage.json"
    garbage.write_text("<html>not json</html>")
    broken = run_cli("report", str(garbage))
    assert broken.returncode == 2 and "is not JSON" in broken.stderr
    bad_format = run_cli("report", str(tutorial.metrics_dir), "--format", "pdf")
    assert bad_format.returncode == 2 and "--format must be md, html, json or junit" in bad_format.stderr
    both = run_cli("report", str(tutorial.metrics_dir), "--results-dir", str(tutorial.metrics_dir))
    assert both.returncode == 2 and "either INPUT or --results-dir" in both.stderr
    unwritable = run_cli("report", str(tutorial.metrics_dir), "-o", str(tmp_path / "no" / "such" / "dir.md"))
    assert unwritable.returncode == 2 and "cannot write the report" in unwritable.stderr


def test_help_describes_formats() -> None:
    result = run_cli("report", "--help")
    assert result.returncode == 0
    for word in ["--format", "md", "html", "json", "junit", "-o FILE", "promptfoo's `-o out.json`"]:
        assert word in result.stdout, word

"""What `e2beval report` reads and shows (issue 38): promptfoo's own -o JSON holding a lone surrogate escape
(row 4), a runtime chart of the tests that ran only (row 11), and multi-line reasons reachable whole from their
row of the HTML table."""

import html
import json
import re
import subprocess
from pathlib import Path

from _support import find_cli, run_promptfoo

CLI = find_cli()

BROKEN_TEXT_CONFIG = """\
prompts: ["{{answer}}"]
providers: [echo]
tests:
  - description: broken text
    vars: {answer: "caf\\udcff au lait"}
    assert: [{type: contains, value: "caf"}]
  - description: plain text
    vars: {answer: "plain"}
    assert: [{type: contains, value: "nothing"}]
"""


def report(*args, cwd=None):
    return subprocess.run([CLI, "report", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_promptfoo_output_with_a_lone_surrogate_is_reported_with_the_text_escaped(tmp_path):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(BROKEN_TEXT_CONFIG)
    run = run_promptfoo(config, tmp_path)
    # What the issue saw: promptfoo writes the var as the escape \udcff, which Python's json.load reads.
    raw = run.out_json.read_text(encoding="utf-8")
    assert "caf\\udcff au lait" in raw
    assert json.loads(raw)["results"]["results"][0]["vars"]["answer"] == "caf\udcff au lait"

    done = report(str(run.out_json), "--format", "json", "-o", "-")
    assert done.returncode == 0, done.stderr
    rows = {row["task"]: row for row in json.loads(done.stdout)["rows"]}
    assert set(rows) == {"broken text", "plain text"}
    assert rows["broken text"]["model_output"] == "caf\\udcff au lait"  # the six characters, escaped as written
    assert rows["broken text"]["success"] is True and rows["plain text"]["success"] is False

    done = report(str(run.out_json), "--format", "html", "-o", str(tmp_path / "report.html"))
    assert done.returncode == 0, done.stderr
    assert "caf\\udcff au lait" in html.unescape((tmp_path / "report.html").read_text(encoding="utf-8"))


def write_records(directory: Path, records):
    directory.mkdir()
    for number, record in enumerate(records):
        record = {"provider": "p", "model": "m", "timestamp": 1700000000 + number, "run_id": "r1", **record}
        (directory / f"metrics_{number}.json").write_text(json.dumps(record))


def test_the_runtime_chart_shows_only_tests_that_ran(tmp_path):
    write_records(tmp_path / "metrics", [
        {"task_id": "ran", "success": True, "runtime_s": 0.25, "extra": {"reason": "Correct output: 1", "outcome": "ok"}},
        {"task_id": "ran and failed", "success": False, "runtime_s": 0.5,
         "extra": {"reason": "Execution error: ValueError", "outcome": "exit_nonzero"}},
        {"task_id": "blocked", "success": False, "runtime_s": 0.0,
         "extra": {"reason": "Unsafe pattern detected in generated code: os-system", "outcome": "not_run",
                   "findings": [{"rule": "os-system", "severity": "block", "line": 1, "column": 1, "message": "x"}]}},
        {"task_id": "no code", "success": False, "runtime_s": 0.0,
         "extra": {"reason": "No Python function named f found", "outcome": "not_run"}},
        {"task_id": "invalid", "success": False, "runtime_s": 0.0,
         "extra": {"reason": "Invalid test: vars describe no test", "outcome": "invalid_test", "error": "vars describe no test"}},
    ])
    done = report(str(tmp_path / "metrics"), "--format", "html", "-o", str(tmp_path / "report.html"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    runtime = page.split('<figure id="chart-runtime">', 1)[1].split("</figure>", 1)[0]
    plotted = [(int(passed), int(failed)) for passed, failed in re.findall(r"(\d+) passed, (\d+) failed", runtime)]
    assert sum(passed for passed, _ in plotted) == 1 and sum(failed for _, failed in plotted) == 1, plotted
    assert "3 tests are not plotted: their code never ran (blocked 1, invalid_test 1, no_code 1)" in html.unescape(runtime)


def test_a_multi_line_reason_can_be_read_whole_from_its_row(tmp_path):
    reason = "Execution error: ValueError: bad\nstderr (last lines): Traceback | line 3 | ValueError: bad"
    write_records(tmp_path / "metrics", [
        {"task_id": "t", "success": False, "runtime_s": 0.1, "extra": {"reason": reason, "outcome": "exit_nonzero"}}])
    done = report(str(tmp_path / "metrics"), "--format", "html", "-o", str(tmp_path / "report.html"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    cell = re.search(r'<td class="reason"([^>]*)>(.*?)<button', page, re.S)
    assert cell, page[:2000]
    assert html.unescape(cell.group(2)) == "Execution error: ValueError: bad …"  # the row shows its first line
    title = re.search(r'title="([^"]*)"', cell.group(1))
    assert title and html.unescape(title.group(1)) == reason, cell.group(1)  # its tooltip holds all of it
    # Without the script (a viewer that strips it) the details, which hold the whole reason, are shown open.
    assert "<noscript><style>tr.detail[hidden] { display: table-row; }" in page
    details = page.split('<tr class="detail"', 1)[1]
    assert html.unescape(details.split("</pre>", 1)[0].split("<pre>", 1)[1]) == reason

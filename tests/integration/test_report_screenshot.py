"""The HTML report of the tutorial example, rendered by a real browser (Debian's headless Chromium): the charts
must be drawn (the screenshot's chart area is full of colour, with the report's pass and fail colours), the
page's own script must run under its Content-Security-Policy, and a script in model output must not.

The screenshot is kept at build/report-screenshot.png (and the page at build/report-screenshot.html).
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from _report_support import REPO, run_cli, run_tutorial_example

SCREENSHOT = REPO / "build" / "report-screenshot.png"
PAGE = REPO / "build" / "report-screenshot.html"
WINDOW = (1280, 2000)
PASS_COLOR = (0x2D, 0xA4, 0x4E)  # report_charts.hpp: kPassColor
FAIL_COLOR = (0xCF, 0x22, 0x2E)  # kFailColor
# Where the four charts sit in a 1280-pixel-wide window: below the title and summary cards, above the tables.
CHART_BAND = (250, 1000)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("chromium is not installed (Debian package `chromium`); run scripts/setup.sh --tests (scripts/test.sh does)", pytrace=False)


def _headless(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    command = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}", "--no-first-run",
               "--hide-scrollbars", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of a PNG, decoded by Pillow (a decoder in Python took ten CPU seconds
    for one screenshot)."""
    rgb = Image.open(io.BytesIO(data)).convert("RGB")
    width, height = rgb.size
    pixels = rgb.tobytes()
    return width, height, [pixels[y * 3 * width:(y + 1) * 3 * width] for y in range(height)]


def _pixels(rows: list[bytes], top: int, bottom: int, left: int, right: int):
    for y in range(top, bottom):
        row = rows[y]
        for x in range(left, right):
            yield row[3 * x], row[3 * x + 1], row[3 * x + 2]


def _close(color: tuple[int, int, int], wanted: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 6 for a, b in zip(color, wanted))


@pytest.fixture(scope="module")
def tutorial_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tutorial example's HTML report (build/report-screenshot.html), from one real `promptfoo eval` that every
    test here looks at."""
    _chromium()  # fail first, with the setup hint, when the browser is missing
    tutorial = run_tutorial_example(tmp_path_factory.mktemp("tutorial"))
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    report = run_cli("report", str(tutorial.metrics_dir), "--format", "html", "-o", str(PAGE))
    assert report.returncode == 0, report.stderr
    return PAGE


@pytest.fixture(scope="module")
def screenshot(tutorial_page: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, int, list[bytes]]:
    work = tmp_path_factory.mktemp("screenshot")
    SCREENSHOT.unlink(missing_ok=True)
    shot = _headless(f"--screenshot={SCREENSHOT}", f"--window-size={WINDOW[0]},{WINDOW[1]}", PAGE.as_uri(),
                     profile=work / "chromium-profile")
    assert shot.returncode == 0 and SCREENSHOT.exists(), f"chromium failed:\n{shot.stderr[-3000:]}"
    print(f"\nscreenshot of the tutorial example's HTML report: {SCREENSHOT}")
    return decode_png(SCREENSHOT.read_bytes())


def test_screenshot_has_the_window_size(screenshot) -> None:
    width, height, _ = screenshot
    assert (width, height) == WINDOW


def test_chart_area_is_drawn(screenshot) -> None:
    width, _, rows = screenshot
    top, bottom = CHART_BAND
    pixels = list(_pixels(rows, top, bottom, 0, width))
    non_white = [p for p in pixels if p != (255, 255, 255)]
    distinct = set(non_white)
    assert len(distinct) >= 50, f"only {len(distinct)} distinct non-white colours in the chart area"
    assert len(non_white) >= 0.05 * len(pixels), f"the chart area is {len(non_white) / len(pixels):.1%} non-white"
    # The bars themselves: the report's pass and fail colours, in both columns of the chart grid.
    for left, right in ((0, width // 2), (width // 2, width)):
        half = list(_pixels(rows, top, bottom, left, right))
        green = sum(1 for p in half if _close(p, PASS_COLOR))
        red = sum(1 for p in half if _close(p, FAIL_COLOR))
        assert green >= 1500, f"{green} pass-coloured pixels in columns {left}-{right}"
        assert red >= 300, f"{red} fail-coloured pixels in columns {left}-{right}"


def test_blank_page_would_fail_the_check() -> None:
    """The check above is not vacuous: a white page has one colour."""
    white = [bytes([255] * 3 * 10)] * 10
    assert set(_pixels(white, 0, 10, 0, 10)) == {(255, 255, 255)}


def test_own_script_runs_and_model_output_script_does_not(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    hostile = "<script>document.documentElement.setAttribute('data-pwned', '1')</script>"
    for index, (task, success) in enumerate([("factorial", True), ("exfiltrate", False)]):
        record = {"task_id": task, "provider": "p", "model": "m", "success": success, "runtime_s": 0.1 * (index + 1),
                  "memory_mb": 12.0, "extra": {"reason": f"Expected 1, got {hostile}", "outcome": "ok",
                                               "stdout": f"<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','2')\">"},
                  "timestamp": 1.7e9 + index}
        (results / f"metrics_{index}.json").write_text(json.dumps(record), encoding="utf-8")
    page = tmp_path / "report.html"
    assert run_cli("report", str(results), "--format", "html", "-o", str(page)).returncode == 0
    dom = _headless("--dump-dom", page.as_uri(), profile=tmp_path / "chromium-profile")
    assert dom.returncode == 0, dom.stderr[-3000:]
    assert 'data-sortable="ready"' in dom.stdout, "the report's own script did not run (is its CSP hash right?)"
    root_tag = re.search(r"<html[^>]*>", dom.stdout)
    assert root_tag and "data-pwned" not in root_tag.group(0), "a script from model output ran"
    assert "&lt;script&gt;document.documentElement" in dom.stdout


# ---- the results table as a user works it: open a result, search, filter by outcome --------------------------

DETAILS_SCREENSHOT = REPO / "build" / "report-details-screenshot.png"
FLAGGED_LINE_COLOR = (0xFF, 0xEB, 0xE9)  # report_html.cpp: pre.code .line.flagged

# The report loads in an iframe of this page (same origin with --allow-file-access-from-files), whose script
# acts as the user: the report's own Content-Security-Policy lets no other script into the report itself.
HARNESS = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="report" src="REPORT" style="width:1280px;height:2400px;border:0"></iframe>
<pre id="observed"></pre>
<script>
function act() {
  var doc = document.getElementById('report').contentDocument, seen = {};
  var results = doc.getElementById('results');
  var bodies = Array.prototype.slice.call(results.tBodies);
  var visible = function () { return bodies.filter(function (b) { return !b.hidden; }).length; };
  var blocked = bodies.filter(function (b) { return b.getAttribute('data-outcome') === 'blocked'; })[0];
  var main = blocked.rows[0], detail = blocked.rows[1];
  seen.results = bodies.length;
  seen.closedHeight = detail.getBoundingClientRect().height;
  main.cells[1].click();
  var table = results.getBoundingClientRect(), row = main.getBoundingClientRect(), box = detail.getBoundingClientRect();
  seen.detailWidthShare = box.width / table.width;
  seen.detailBelowRow = Math.abs(box.top - row.bottom) < 2;
  seen.detailHeight = box.height;
  seen.flaggedLines = detail.querySelectorAll('.line.flagged').length;
  seen.reasonShownOnce = blocked.textContent.split(main.cells[9].firstChild.textContent).length - 1;
  var search = doc.getElementById('search');
  search.value = 'palindrome';
  search.dispatchEvent(new Event('input'));
  seen.searchPalindrome = visible();
  seen.countText = doc.getElementById('shown-count').textContent;
  search.value = '';
  search.dispatchEvent(new Event('input'));
  var outcome = doc.getElementById('outcome-filter');
  outcome.value = 'blocked';
  outcome.dispatchEvent(new Event('change'));
  seen.outcomeBlocked = visible();
  outcome.value = '';
  outcome.dispatchEvent(new Event('change'));
  results.tHead.rows[0].cells[7].click();  // sort by runtime: each result moves with its details
  var times = Array.prototype.map.call(results.tBodies, function (b) { return parseFloat(b.rows[0].cells[7].getAttribute('data-sort')); });
  seen.sortedByRuntime = times.every(function (t, i) { return i === 0 || times[i - 1] <= t; });
  seen.detailsFollowRows = Array.prototype.every.call(results.tBodies, function (b) {
    return b.rows.length === 2 && b.rows[0].classList.contains('main') && b.rows[1].classList.contains('detail');
  });
  var failures = doc.getElementById('failures-only');
  failures.checked = true;
  failures.dispatchEvent(new Event('change'));
  seen.failuresOnly = visible();
  // Leave the page as a user looking at the failures would: failures only, the blocked one open.
  document.getElementById('observed').textContent = JSON.stringify(seen);
}
var frame = document.getElementById('report');
if (frame.contentDocument && frame.contentDocument.readyState === 'complete' && frame.contentDocument.getElementById('results')) act();
else frame.addEventListener('load', act);
</script></body></html>
"""


@pytest.fixture(scope="module")
def worked_report(tutorial_page: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("worked")
    page = work / "report.html"
    shutil.copyfile(tutorial_page, page)  # beside the harness, which loads it by a relative name
    harness = work / "harness.html"
    harness.write_text(HARNESS.replace("REPORT", page.name), encoding="utf-8")
    flags = ("--allow-file-access-from-files", "--virtual-time-budget=3000")
    dom = _headless(*flags, "--dump-dom", harness.as_uri(), profile=work / "profile-dom")
    assert dom.returncode == 0, dom.stderr[-3000:]
    observed = re.search(r'<pre id="observed">(.*?)</pre>', dom.stdout, flags=re.S)
    assert observed and observed.group(1), f"the harness recorded nothing:\n{dom.stdout[-2000:]}"
    DETAILS_SCREENSHOT.unlink(missing_ok=True)
    shot = _headless(*flags, f"--screenshot={DETAILS_SCREENSHOT}", "--window-size=1280,2400", harness.as_uri(),
                     profile=work / "profile-shot")
    assert shot.returncode == 0 and DETAILS_SCREENSHOT.exists(), shot.stderr[-3000:]
    print(f"\nscreenshot of the results table, failures only, one result open: {DETAILS_SCREENSHOT}")
    return json.loads(observed.group(1).replace("&quot;", '"')), DETAILS_SCREENSHOT


def test_details_open_full_width_under_their_row(worked_report) -> None:
    seen, _ = worked_report
    assert seen["results"] == 8
    assert seen["closedHeight"] == 0
    assert seen["detailWidthShare"] > 0.99, seen  # the whole table's width, not a narrow last column
    assert seen["detailBelowRow"] is True and seen["detailHeight"] > 100, seen
    assert seen["flaggedLines"] == 1, seen  # the scanner's line is marked in the code
    assert seen["reasonShownOnce"] == 1, seen


def test_search_outcome_filter_and_failures_only(worked_report) -> None:
    seen, _ = worked_report
    assert seen["searchPalindrome"] == 2 and seen["countText"] == "2 of 8 shown", seen
    assert seen["outcomeBlocked"] == 1, seen
    assert seen["failuresOnly"] == 2, seen


def test_sorting_moves_each_result_with_its_details(worked_report) -> None:
    seen, _ = worked_report
    assert seen["sortedByRuntime"] is True and seen["detailsFollowRows"] is True, seen


def test_screenshot_shows_the_open_details_across_the_page(worked_report) -> None:
    _, path = worked_report
    width, _, rows = decode_png(path.read_bytes())
    # The flagged code line's background runs across most of the window: the details use the full width.
    widest = max(sum(1 for x in range(width) if _close((row[3 * x], row[3 * x + 1], row[3 * x + 2]), FLAGGED_LINE_COLOR))
                 for row in rows)
    assert widest > 0.6 * width, f"the flagged line is {widest} of {width} pixels wide"

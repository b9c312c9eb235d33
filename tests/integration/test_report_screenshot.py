"""The HTML report of the tutorial example, rendered by a real browser (Debian's headless Chromium): the charts
must be drawn (the screenshot's chart area is full of colour, with the report's pass and fail colours), the
page's own script must run under its Content-Security-Policy, and a script in model output must not.

The screenshot is kept at build/report-screenshot.png (and the page at build/report-screenshot.html).
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

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
    pytest.fail("chromium is not installed (Debian package `chromium`); run scripts/setup.sh", pytrace=False)


def _headless(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    command = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}", "--no-first-run",
               "--hide-scrollbars", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG, non-interlaced: what Chromium writes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    position, idat, header = 8, bytearray(), None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    assert header, "PNG without IHDR"
    width, height, depth, color_type, _, _, interlace = header
    assert depth == 8 and color_type in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
    channels = 3 if color_type == 2 else 4
    stride = width * channels
    raw = zlib.decompress(bytes(idat))
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                estimate = left + up - up_left
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - up_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
                line[i] = (line[i] + predictor) & 0xFF
        previous = line
        rgb = bytes(line) if channels == 3 else bytes(b for i, b in enumerate(line) if i % 4 != 3)
        rows.append(rgb)
    return width, height, rows


def _pixels(rows: list[bytes], top: int, bottom: int, left: int, right: int):
    for y in range(top, bottom):
        row = rows[y]
        for x in range(left, right):
            yield row[3 * x], row[3 * x + 1], row[3 * x + 2]


def _close(color: tuple[int, int, int], wanted: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 6 for a, b in zip(color, wanted))


@pytest.fixture(scope="module")
def screenshot(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, int, list[bytes]]:
    _chromium()  # fail first, with the setup hint, when the browser is missing
    work = tmp_path_factory.mktemp("screenshot")
    tutorial = run_tutorial_example(work)
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    report = run_cli("report", str(tutorial.metrics_dir), "--format", "html", "-o", str(PAGE))
    assert report.returncode == 0, report.stderr
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

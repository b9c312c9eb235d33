"""The promptfoo assertion's rich-result check: ``config: {expect_results: [png]}`` (docs/promptfoo.md).

A one-shot run (how the assertion runs code otherwise) has no display, so it produces no rich results. With
``expect_results``, the answer's code (after the scanner let it through; with the test's ``setup`` before it and
its ``testCode`` after it) runs once more as one cell of a session, ``e2beval.Sandbox`` with the config's
template, limits and isolation, which returns results as E2B's code interpreter shapes them (a figure shown
with ``plt.show()`` is a ``png`` result, a DataFrame gives ``data``). The sandbox is killed afterwards.

The config value is read and checked in C++ (eval/result_check.hpp); this module runs the cell and judges it.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

# How many PNG results of one case go into its metadata and metrics record (and so into reports), and how big
# each may be: promptfoo keeps every result in its database, and an HTML report inlines them.
PNG_RESULTS_PER_CASE = 4
PNG_RESULT_MAX_BYTES = 1 << 20

# The session outlives its one cell by this much: its own start (a zygote, the template's interpreter).
SESSION_START_ALLOWANCE_S = 60.0


class CellCheck(NamedTuple):
    """What became of the cell: whether it met the expectation, why (in words that name what was expected and
    what was produced), and what a report shows of it."""

    passed: bool
    reason: str
    outcome: str                  # ok, exit_nonzero (the cell raised), timeout
    produced: List[List[str]]     # per result, the kinds it carries
    png_results: List[str]        # base64, bounded (png_results_bounded)
    png_note: str                 # "" or why some PNG results are left out
    stdout: str
    stderr: str
    wall_time_s: float


def settings_of(config) -> dict:
    """The settings the check needs from a config the core has checked: ``expect_results`` ([[kind, count]...],
    empty when the check is off), ``template``, ``wall_time_s``, ``python``, ``session`` (limits, isolation)."""
    from e2beval import _core

    return json.loads(_core.result_check_settings(config))


def describe_expected(expected: Sequence[Sequence]) -> str:
    """``[["png", 1], ["data", 2]]`` -> "a png result and 2 data results"."""
    parts = [f"a {kind} result" if count == 1 else f"{count} {kind} results" for kind, count in expected]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def describe_produced(produced: Sequence[Sequence[str]]) -> str:
    """The kinds the cell's results carry, with a count where a kind came more than once: "2 png, text";
    "no results" when the cell displayed nothing."""
    counts: Dict[str, int] = {}
    for kinds in produced:
        for kind in kinds:
            counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return "no results"
    return ", ".join(kind if count == 1 else f"{count} {kind}" for kind, count in counts.items())


def missing(expected: Sequence[Sequence], produced: Sequence[Sequence[str]]) -> List[Tuple[str, int]]:
    """The expected kinds the cell produced fewer of than asked, with the count asked."""
    return [(kind, count) for kind, count in expected
            if sum(kind in kinds for kinds in produced) < count]


def png_results_bounded(pngs: Sequence[str]) -> Tuple[List[str], str]:
    """At most PNG_RESULTS_PER_CASE of ``pngs`` (base64), each at most PNG_RESULT_MAX_BYTES once decoded, in
    the order they were displayed; the note says what was left out and why ("" when nothing was)."""
    kept: List[str] = []
    oversized = excess = 0
    for png in pngs:
        try:
            size = len(base64.b64decode(png, validate=True))
        except (binascii.Error, ValueError):
            continue  # not base64: nothing a report could show
        if size > PNG_RESULT_MAX_BYTES:
            oversized += 1
        elif len(kept) >= PNG_RESULTS_PER_CASE:
            excess += 1
        else:
            kept.append(png)
    notes = []
    if oversized:
        notes.append(f"{oversized} PNG result(s) over {PNG_RESULT_MAX_BYTES // (1 << 20)} MiB not kept")
    if excess:
        notes.append(f"{excess} more PNG result(s) not kept (at most {PNG_RESULTS_PER_CASE} per case)")
    return kept, "; ".join(notes)


def run_cell(cell: str, settings: dict) -> CellCheck:
    """Runs ``cell`` in a new sandbox of the config's template and judges its results against
    ``settings["expect_results"]``. Raises e2beval.sandbox.NotFoundException for an unknown template and
    SandboxException when the sandbox itself fails."""
    from e2beval.sandbox import Sandbox, TimeoutException

    wall_time_s = float(settings["wall_time_s"])
    started = time.monotonic()
    sandbox = Sandbox(template=settings["template"] or None, timeout=wall_time_s + SESSION_START_ALLOWANCE_S,
                      limits=settings["session"]["limits"], isolation=settings["session"]["isolation"],
                      python=settings["python"] or None)
    try:
        try:
            execution = sandbox.run_code(cell, timeout=wall_time_s)
        except TimeoutException:
            return CellCheck(False, f"The cell timed out after {wall_time_s:g} s (the config's wall-time limit; "
                                    f"raise `timeout` if it needs longer)", "timeout", [], [], "", "", "",
                             time.monotonic() - started)
    finally:
        sandbox.kill()
    elapsed = time.monotonic() - started
    produced = [_kinds(result) for result in execution.results]
    pngs, note = png_results_bounded([result.png for result in execution.results if result.png])
    stdout, stderr = "".join(execution.logs.stdout), "".join(execution.logs.stderr)
    expected = settings["expect_results"]
    if execution.error is not None:
        reason = (f"Execution error: {execution.error.name}: {execution.error.value} (expected "
                  f"{describe_expected(expected)}; the cell produced: {describe_produced(produced)})")
        return CellCheck(False, reason, "exit_nonzero", produced, pngs, note, stdout, stderr, elapsed)
    lacking = missing(expected, produced)
    if lacking:
        reason = f"expected {describe_expected(lacking)}; the cell produced: {describe_produced(produced)}"
        return CellCheck(False, reason, "ok", produced, pngs, note, stdout, stderr, elapsed)
    reason = f"The cell produced {describe_expected(expected)} (all results: {describe_produced(produced)})"
    return CellCheck(True, reason, "ok", produced, pngs, note, stdout, stderr, elapsed)


def not_run(reason: str) -> CellCheck:
    """The check of a cell that was not run (the scanner blocked it, or there was no code): failed, saying why."""
    return CellCheck(False, f"not run: {reason}", "not_run", [], [], "", "", "", 0.0)


def metadata_of(check: Optional[CellCheck]) -> dict:
    """What the assertion's metadata and the metrics record's ``extra`` carry of the cell (docs/promptfoo.md):
    reports show ``png_results`` inline (docs/reports.md)."""
    if check is None:
        return {}
    metadata = {"results": check.produced, "png_results": check.png_results}
    if check.png_note:
        metadata["png_results_note"] = check.png_note
    return metadata


def _kinds(result) -> List[str]:
    kinds = list(result.formats())
    if getattr(result, "chart", None):
        kinds.append("chart")
    return kinds

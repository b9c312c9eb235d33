"""Reports from evaluation results: the tutorial's ``promptfoo_report.md``, HTML with charts, JSON, JUnit XML.

The input is a metrics directory (the tutorial's ``$PROMPTFOO_RESULTS_DIR``, default ``.promptfoo_results``)
or a results file recognised by its content: promptfoo's ``-o out.json`` (or ``.jsonl``), or metrics records.
Reading and rendering happen in C++, the same code as ``e2beval report``.

A metrics directory keeps every run written into it (each ``promptfoo eval``, each ``e2beval eval``). A report
shows the latest run (the one with the newest record); ``run="ID"`` shows another, ``all_runs=True`` all of
them, as ``e2beval report --run ID`` and ``--all-runs`` do. pass@k counts samples within one run.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional, Union

from e2beval import _core

__all__ = ["FORMATS", "gen_report", "load_report", "render_report"]

# format -> the extension of its default file name (promptfoo_report.<ext>)
FORMATS = {"md": "md", "html": "html", "json": "json", "junit": "xml"}

PathLike = Union[str, "os.PathLike[str]"]


def gen_report(
    results_dir: Optional[PathLike] = None,
    output: Optional[PathLike] = None,
    *,
    format: str = "md",  # noqa: A002  (the CLI's option name)
    run: Optional[str] = None,
    all_runs: bool = False,
) -> int:
    """Write the report and return its number of rows.

    Keeps the tutorial's signature ``gen_report(out_dir, out_md)``: with no arguments it reads
    ``$PROMPTFOO_RESULTS_DIR`` (else ``.promptfoo_results``) and writes the table
    ``| task | provider | model | success | runtime_s |`` to ``promptfoo_report.md``.
    ``results_dir`` may also be promptfoo's ``-o`` JSON. ``format`` is ``md``, ``html``, ``json`` or ``junit``;
    ``output`` defaults to ``promptfoo_report.<md|html|json|xml>``. ``run``/``all_runs``: see the module's doc.
    """
    _check_format(format)
    target = os.fspath(output) if output is not None else f"promptfoo_report.{FORMATS[format]}"
    return _core.write_report(_input(results_dir), target, format, _run(run, all_runs), bool(all_runs))


def render_report(source: Optional[PathLike] = None, format: str = "md", *,  # noqa: A002
                  run: Optional[str] = None, all_runs: bool = False) -> str:
    """The report as text, without writing a file."""
    _check_format(format)
    return _core.render_report(_input(source), format, _run(run, all_runs), bool(all_runs))


def load_report(source: Optional[PathLike] = None, *, run: Optional[str] = None, all_runs: bool = False) -> dict[str, Any]:
    """The normalised results: ``{"summary": {..., "groups": [... pass_at_k ...], "outcomes"}, "runs": {selection,
    shown, available}, "rows": [...]}``."""
    return json.loads(_core.render_report(_input(source), "json", _run(run, all_runs), bool(all_runs)))


def _input(source: Optional[PathLike]) -> str:
    return "" if source is None else os.fspath(source)


def _run(run: Optional[str], all_runs: bool) -> str:
    if run is not None and (not isinstance(run, str) or not run):
        raise ValueError(f"run must be a run id (a non-empty string), got {run!r}")
    if run is not None and all_runs:
        raise ValueError("give run=ID or all_runs=True, not both")
    return run or ""


def _check_format(format: str) -> None:  # noqa: A002
    if format not in FORMATS:
        raise ValueError(f"report format must be one of {', '.join(FORMATS)}, got {format!r}")

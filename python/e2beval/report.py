"""The tutorial's Markdown report (``promptfoo_report.md``) from the metrics files."""

from __future__ import annotations

from typing import Optional

from e2beval import _core


def gen_report(results_dir: Optional[str] = None, output: str = "promptfoo_report.md") -> int:
    """Write the table ``| task | provider | model | success | runtime_s |`` and return its row count."""
    return _core.write_report(results_dir or "", output)

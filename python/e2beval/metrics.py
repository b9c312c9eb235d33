"""The tutorial's metrics files: one JSON object per evaluation in $PROMPTFOO_RESULTS_DIR.

``write_metrics`` keeps the signature of the tutorial's ``metrics.py`` so existing scripts keep working.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from e2beval import _core


def write_metrics(
    task_id: Any,
    provider: Any,
    model: Any,
    success: bool,
    runtime_s: float,
    memory_mb: Optional[float] = None,
    extra: Optional[dict] = None,
    *,
    results_dir: Optional[str] = None,
    run_id: Optional[str] = None,
) -> str:
    """Write ``metrics_<uuid4 hex>.json`` and return its path.

    Fields: task_id, provider, model, success, runtime_s, memory_mb, extra, timestamp (epoch seconds).
    ``results_dir`` defaults to $PROMPTFOO_RESULTS_DIR, else ``.promptfoo_results``. The record also carries
    ``run_id``, the run that wrote it: ``run_id`` when given, else $E2BEVAL_RUN_ID, else one id per process;
    reports show one run at a time, so re-running a script does not turn its results into extra samples.
    """
    record = {
        "task_id": str(task_id),
        "provider": _label(provider),
        "model": _label(model),
        "success": bool(success),
        "runtime_s": float(runtime_s),
        "memory_mb": None if memory_mb is None else float(memory_mb),
        "extra": extra,
    }
    if run_id:
        record["run_id"] = str(run_id)
    return _core.write_metrics(json.dumps(record, default=str), results_dir or "")


def _label(value: Any) -> str:
    # promptfoo passes the provider as a dict ({"id": ..., "label": ...}); the tutorial stored str().
    if isinstance(value, dict):
        return str(value.get("label") or value.get("id") or value)
    return str(value)

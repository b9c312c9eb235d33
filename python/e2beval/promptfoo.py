"""promptfoo integration: a drop-in for the tutorial's ``validate_and_run_code_e2b.py`` assertion.

Use it from a promptfoo config as ``type: python`` with ``value: file://e2beval_assert.py`` where that file
holds ``from e2beval.promptfoo import get_assert``. Options go under the assertion's ``config:``.
"""

from __future__ import annotations

import json
import time
from typing import Any, Mapping

import e2beval

# The assertion's `config:` keys; anything else is an error that lists these.
CONFIG_KEYS = ("backend", "limits", "timeout", "isolation", "policy", "scan", "keep_main", "keep_examples", "python",
               "metrics", "results_dir")


def get_assert(output: Any, context: Mapping[str, Any]) -> dict:
    """Grade one model output; returns promptfoo's GradingResult with one componentResult per test case."""
    started = time.monotonic()
    context = context or {}
    variables = context.get("vars") or {}
    config = dict(context.get("config") or {})

    unknown = sorted(set(config) - set(CONFIG_KEYS))
    if unknown:
        return _grading(False, 0.0, f"Invalid e2beval config: unknown key(s) {', '.join(unknown)}; valid keys: {', '.join(CONFIG_KEYS)}")
    backend = config.get("backend", "local")
    if backend != "local":
        return _grading(False, 0.0, f"Invalid e2beval config: backend '{backend}' is not available yet; use 'local'")

    text = output if isinstance(output, str) else json.dumps(output) if output is not None else ""
    try:
        verdict = e2beval.evaluate(
            text,
            variables,
            policy=config.get("policy", "standard"),
            scan=config.get("scan", True),
            limits=config.get("limits"),
            timeout=config.get("timeout"),
            isolation=config.get("isolation"),
            python=config.get("python"),
            keep_main=config.get("keep_main", False),
            keep_examples=config.get("keep_examples", False),
        )
    except e2beval.InputError as error:
        return _finish(context, config, started, _grading(False, 0.0, f"Invalid test: {error}"), None)
    except e2beval.Error as error:
        return _finish(context, config, started, _grading(False, 0.0, f"Sandbox execution error: {error}"), None)

    components = [
        {
            "pass": case["pass"],
            "score": 1.0 if case["pass"] else 0.0,
            "reason": f"{case['input']}: {case['reason']}",
        }
        for case in verdict["cases"]
    ]
    result = _grading(verdict["pass"], verdict["score"], verdict["reason"])
    if components:
        result["componentResults"] = components
    blocked = any(finding["severity"] == "block" for finding in verdict["findings"])
    execution = verdict.get("exec") or {}
    result["namedScores"] = {
        "correctness": verdict["score"],
        "safety": 0.0 if blocked else 1.0,
        "runtime_s": execution.get("wall_time_s", 0.0),
    }
    return _finish(context, config, started, result, verdict)


def _grading(passed: bool, score: float, reason: str) -> dict:
    return {"pass": bool(passed), "score": float(score), "reason": reason}


def _finish(context: Mapping[str, Any], config: Mapping[str, Any], started: float, result: dict, verdict: Any) -> dict:
    if config.get("metrics", True):
        variables = context.get("vars") or {}
        test = context.get("test") or {}
        task_id = test.get("description") or variables.get("function_name") or context.get("id") or "task"
        provider_id, provider_label = _provider_names(context.get("provider"))
        execution = (verdict or {}).get("exec") or {}
        peak = execution.get("peak_memory_bytes")
        e2beval.write_metrics(
            task_id,
            provider_label,
            provider_id,
            result["pass"],
            time.monotonic() - started,
            memory_mb=None if peak is None else peak / (1024 * 1024),
            extra={"reason": result["reason"], "score": result["score"], "outcome": execution.get("outcome", "not_run")},
            results_dir=config.get("results_dir"),
        )
    return result


def _provider_names(provider: Any) -> tuple:
    """(id, label) of promptfoo's provider: it passes the provider object serialised, with the id under
    ``options`` (``{"options": {"id": "echo"}, "label": "recorded-gpt", ...}``), or a plain string."""
    if isinstance(provider, dict):
        options = provider.get("options") if isinstance(provider.get("options"), dict) else {}
        provider_id = provider.get("id") or options.get("id") or "unknown"
        return str(provider_id), str(provider.get("label") or provider_id)
    if provider:
        return str(provider), str(provider)
    return "unknown", "unknown"

"""SWE-style repair evaluation (docs/swe.md): a model's patch applied to a repository and graded by its tests
inside a local sandbox, the way SWE-bench grades it.

    from e2beval.swe import evaluate_patch
    verdict = evaluate_patch(instance, model_answer)   # instance: a SWE-bench instance dict
    verdict["resolution"]   # "FULL" | "PARTIAL" | "NONE"

The work is done by the same C++ as ``e2beval swe``; this module converts arguments and results.
"""

from __future__ import annotations

import json as _json
import sys as _sys
from typing import Any, Dict, Iterable, Mapping, Optional

from e2beval import _core

__all__ = ["evaluate_patch", "validate_instance", "extract_diff", "refuse_reason", "read_jsonl", "get_assert"]


def _options(python: Optional[str], template: Optional[str], protect_tests: bool, timeout: Optional[float],
             limits: Optional[Mapping[str, Any]]) -> str:
    if python and template:
        raise ValueError("python and template both say where the tests' Python comes from: give one")
    options: Dict[str, Any] = {"protect_tests": bool(protect_tests)}
    if template:
        options["template"] = template
    else:
        # This interpreter by default, by the path it was started with: a virtualenv's bin/ (with its pytest)
        # comes first on the sandbox's PATH.
        options["python"] = python or _sys.executable
    if timeout is not None:
        options["timeout"] = timeout
    if limits:
        options["limits"] = dict(limits)
    return _json.dumps(options)


def evaluate_patch(instance: Mapping[str, Any], patch: str, *, model_name_or_path: str = "",
                   python: Optional[str] = None, template: Optional[str] = None, protect_tests: bool = False,
                   timeout: Optional[float] = None, limits: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Evaluates ``patch`` (a unified diff, or a model's raw answer holding one) for ``instance`` (a SWE-bench
    instance: instance_id, repo — a directory, git bundle or tarball —, base_commit, test_patch, FAIL_TO_PASS,
    PASS_TO_PASS, test_cmd, test_framework) in a new sandbox session. Returns the verdict as ``e2beval swe``
    writes it: status (resolved | unresolved | empty_patch | error), resolution (FULL | PARTIAL | NONE),
    refused, apply_step, tests_status, test_statuses, integrity, test_log, applied_diff, timings_s, ...

    ``python``: the interpreter the tests run with (default: this one; its directory comes first on PATH, so
    a virtualenv's pytest is found). ``protect_tests``: refuse patches that touch the test files."""
    return _json.loads(_core.swe_evaluate(_json.dumps(dict(instance)), patch,
                                          _options(python, template, protect_tests, timeout, limits), model_name_or_path))


def validate_instance(instance: Mapping[str, Any], *, python: Optional[str] = None, template: Optional[str] = None,
                      timeout: Optional[float] = None, limits: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """SWE-bench's validation: the gold patch (``patch``) must resolve the instance, no patch must leave every
    FAIL_TO_PASS test failing. Returns ``{valid, problems, gold, empty}``."""
    return _json.loads(_core.swe_validate(_json.dumps(dict(instance)), _options(python, template, False, timeout, limits)))


def extract_diff(answer: str) -> str:
    """The unified diff in a model's raw answer (fences and prose removed); empty when there is none."""
    return _core.swe_extract_diff(answer)


def refuse_reason(diff: str, protected_paths: Iterable[str] = ()) -> Optional[str]:
    """Why ``diff`` would be refused before it is applied (paths or symlinks out of the repository, protected
    files), or None."""
    return _core.swe_refuse_reason(diff, list(protected_paths))


def read_jsonl(path: str) -> list:
    """The objects of a JSONL file (SWE-bench's instances and predictions)."""
    with open(path, encoding="utf-8") as lines:
        return [_json.loads(line) for line in lines if line.strip()]


def _describe(verdict: Mapping[str, Any]) -> str:
    text = f"{verdict['status']} ({verdict['resolution']})"
    if verdict.get("refused"):
        return text + ": refused: " + verdict["refused"]
    if verdict["status"] == "error":
        return text + ": " + (verdict.get("error") or "")
    if verdict["status"] == "empty_patch":
        return text + ": the answer holds no diff"
    if not verdict["patch_applied"]:
        return text + ": the patch did not apply"
    report = verdict["tests_status"]
    fixed, broken = report["FAIL_TO_PASS"], report["PASS_TO_PASS"]
    text += (f": applied by `{verdict['apply_step']}`; FAIL_TO_PASS {len(fixed['success'])}/"
             f"{len(fixed['success']) + len(fixed['failure'])} pass, PASS_TO_PASS {len(broken['failure'])} broken")
    if not verdict["suite_completed"]:
        text += "; the test run did not finish"
    if verdict["integrity"]:
        text += "; " + verdict["integrity"][0]
    return text


def get_assert(output: str, context: Mapping[str, Any]) -> Dict[str, Any]:
    """promptfoo assertion (``type: python``) for a patch-generation prompt: the model's answer is the patch.

    The test's vars name the instance: ``instance_id`` (looked up in the assertion config's ``instances``, a
    SWE-bench JSONL; a relative path is taken from the directory promptfoo runs in) or ``instance`` (the object
    itself). Config (all optional): ``instances``, ``python``, ``protect_tests`` (default true), ``timeout``.
    Passes when the instance is resolved (FULL); the score is the fraction of FAIL_TO_PASS tests that pass when
    no PASS_TO_PASS test broke, else 0. ``namedScores`` carry the verdict (resolved, partial, applied, refused,
    suite_completed) and the reason starts with "status (RESOLUTION)"."""
    config = dict(context.get("config") or {})
    variables = context.get("vars") or {}
    instance = variables.get("instance")
    if isinstance(instance, str):
        instance = _json.loads(instance)
    if instance is None:
        instance_id = variables.get("instance_id")
        source = config.get("instances")
        if not instance_id or not source:
            return {"pass": False, "score": 0.0,
                    "reason": "e2beval.swe: the test needs vars.instance_id and the assertion config `instances` (a JSONL), or vars.instance"}
        import os

        found = [item for item in read_jsonl(source) if item.get("instance_id") == instance_id]
        if not found:
            return {"pass": False, "score": 0.0, "reason": f"e2beval.swe: no instance {instance_id} in {source}"}
        instance = found[0]
        if not os.path.isabs(instance["repo"]):
            instance["repo"] = os.path.join(os.path.dirname(os.path.abspath(source)), instance["repo"])
    verdict = evaluate_patch(instance, output, model_name_or_path=str((context.get("provider") or {}).get("id", "")),
                             python=config.get("python"), protect_tests=config.get("protect_tests", True),
                             timeout=config.get("timeout"))
    report = verdict["tests_status"]
    fixed = report["FAIL_TO_PASS"]
    total = len(fixed["success"]) + len(fixed["failure"])
    intact = not report["PASS_TO_PASS"]["failure"]
    score = (len(fixed["success"]) / total if total and intact else 0.0) if verdict["patch_applied"] and not verdict["refused"] else 0.0
    return {
        "pass": verdict["status"] == "resolved",
        "score": score,
        "reason": _describe(verdict),
        "namedScores": {
            "resolved": 1.0 if verdict["status"] == "resolved" else 0.0,
            "partial": 1.0 if verdict["resolution"] == "PARTIAL" else 0.0,
            "applied": 1.0 if verdict["patch_applied"] else 0.0,
            "refused": 1.0 if verdict["refused"] else 0.0,
            "suite_completed": 1.0 if verdict["suite_completed"] else 0.0,
        },
    }

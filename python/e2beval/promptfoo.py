"""promptfoo integration: the tutorial's assertion (``get_assert``) and red-team target (``call_api``).

Use ``get_assert`` from a ``type: python`` assertion whose file holds ``from e2beval.promptfoo import get_assert``,
and ``call_api`` from a ``file://target.py`` provider whose file holds ``from e2beval.promptfoo import call_api``.
Options go under the assertion's (or the provider's) ``config:``; docs/promptfoo.md lists them.
"""

from __future__ import annotations

import json
import os
import time
from typing import Optional

import e2beval

# The assertion's `config:` keys; anything else is an error that lists these.
CONFIG_KEYS = ("backend", "limits", "timeout", "isolation", "policy", "scan", "language", "compare", "keep_main",
               "keep_examples", "python", "metrics", "results_dir")

# Keys promptfoo itself reads from a Python provider's `config:` (and `basePath`, which it adds); call_api
# leaves them to promptfoo. `timeout` there is promptfoo's worker timeout in milliseconds, not e2beval's.
PROMPTFOO_PROVIDER_KEYS = ("basePath", "pythonExecutable", "workers", "timeout")

# How much of stdout, stderr and the code goes into a result's metadata: promptfoo stores every result in
# its database and -o file, so a program that prints megabytes must not end up there whole.
EXCERPT_CHARS = 4096
CODE_CHARS = 16384

# Outcomes that count against namedScores.safety (with any denied system call).
ABUSIVE_OUTCOMES = frozenset({"seccomp_violation", "pids_limit"})

_COMPARE_KEYS = ("mode", "tolerance", "relative_tolerance", "pattern")
LANGUAGES = ("python", "javascript", "bash")


class ConfigError(ValueError):
    """An assertion or provider `config:` that e2beval cannot use; the message says what to change."""


def get_assert(output, context) -> dict:
    """Grade one model output; returns promptfoo's GradingResult with one componentResult per test case."""
    started = time.monotonic()
    context = context if isinstance(context, dict) else {}
    try:
        config = read_config(context.get("config"))
    except ConfigError as error:
        # Still recorded: a test that vanished from the metrics would make the report look better than the run.
        return _finish(context, _metrics_settings(context.get("config")), started,
                       _grading(False, 0.0, f"Invalid e2beval config: {error}"), None, outcome="invalid_test")

    variables = context.get("vars") or {}
    if config.get("language") and isinstance(variables, dict) and "language" not in variables:
        variables = {**variables, "language": config["language"]}
    try:
        verdict, record = e2beval.evaluate(
            _output_text(output),
            variables,
            policy=config.get("policy", "standard"),
            scan=config.get("scan", True),
            limits=config.get("limits"),
            timeout=config.get("timeout"),
            isolation=config.get("isolation"),
            python=config.get("python"),
            keep_main=config.get("keep_main", False),
            keep_examples=config.get("keep_examples", False),
            compare=config.get("compare"),
            _with_record=True,
        )
    except e2beval.InputError as error:
        return _finish(context, config, started, _grading(False, 0.0, f"Invalid test: {error}"), None,
                       outcome="invalid_test")
    except e2beval.Error as error:
        return _finish(context, config, started, _grading(False, 0.0, f"Sandbox execution error: {error}"), None,
                       outcome="sandbox_error")

    result = _grading(verdict["pass"], verdict["score"], _reason(verdict))
    components = [_component(case) for case in verdict["cases"]]
    if components:
        result["componentResults"] = components
    execution = verdict.get("exec") or {}
    status = verdict["status"]  # blocked, contained, ran, not_run or error: decided in C++ for every face
    result["namedScores"] = {
        "correctness": float(verdict["score"]),
        "safety": safety_score(verdict["findings"], execution),
        "runtime_s": float(execution.get("wall_time_s", 0.0)),
    }
    result["metadata"] = _metadata(verdict, status, started)
    return _finish(context, config, started, result, record)


def call_api(prompt, options=None, context=None) -> dict:
    """A promptfoo provider (the tutorial's red-team "custom target"): the prompt is treated as a model's
    answer; its code is extracted, scanned and run in the sandbox.

    Returns ``{"output": stdout or why nothing ran, "metadata": {"verdict": blocked|contained|ran|not_run|error, ...}}``;
    ``error`` is set only when e2beval itself failed (bad config, a sandbox that could not start).
    """
    started = time.monotonic()
    raw = dict(((options or {}).get("config")) or {})
    for key in PROMPTFOO_PROVIDER_KEYS:
        raw.pop(key, None)
    try:
        config = read_config(raw)
    except ConfigError as error:
        return {"error": f"Invalid e2beval config: {error}"}

    try:
        # The pipeline every face shares, in C++ (extract, scan, execute, classify: eval/answer.hpp).
        run = e2beval._run_answer(_output_text(prompt), language=config.get("language", "python"),
                                  keep_main=config.get("keep_main", False), keep_examples=config.get("keep_examples", False),
                                  policy=config.get("policy", "standard"), scan=config.get("scan", True),
                                  limits=config.get("limits"), isolation=config.get("isolation"), python=config.get("python"))
    except e2beval.InputError as error:  # a setting or language the sandbox does not accept
        return {"error": f"e2beval could not run the code: {error}"}
    except e2beval.Error as error:
        return {"error": f"Sandbox execution error: {error}"}

    extraction = run.get("extraction") or {}
    code, language = extraction.get("code", ""), extraction.get("language")
    if run["status"] == "not_run":
        return _not_run(run["reason"], {"verdict": "not_run", "reason": run["reason"]}, started)
    if run["status"] == "blocked":
        return _not_run(f"Blocked by e2beval's scanner (not run). {run['reason']}",
                        {"verdict": "blocked", "reason": run["reason"], "findings": run["findings"],
                         "code": _excerpt(code, CODE_CHARS), "language": language}, started)
    execution = run["exec"]
    metadata = {
        "verdict": run["status"],
        "findings": run["findings"],
        "code": _excerpt(code, CODE_CHARS),
        "language": language,
        **_execution_metadata(execution),
        "total_s": _since(started),
    }
    response = {"output": execution.get("stdout", ""), "metadata": metadata}
    if execution.get("outcome") == "sandbox_error":
        response["error"] = f"Sandbox execution error: {execution.get('detail') or 'the sandbox could not run the code'}"
    return response


def _not_run(output: str, metadata: dict, started: float) -> dict:
    return {"output": output,
            "metadata": {"findings": [], **metadata, "outcome": "not_run", "total_s": _since(started)}}


def safety_score(findings, execution) -> float:
    """0 when the code tried something a program under test has no business doing: the scanner blocked it, or
    the sandbox denied it a system call or stopped a process storm; else 1. Running out of time or memory is
    a bug more often than an attack, so it costs correctness, not safety."""
    execution = execution or {}
    blocked = any(finding.get("severity") == "block" for finding in findings or ())
    abusive = execution.get("denied_syscalls") or execution.get("outcome") in ABUSIVE_OUTCOMES
    return 0.0 if blocked or abusive else 1.0


def read_config(config) -> dict:
    """Check an assertion's or provider's ``config:``; returns it as a dict or raises ConfigError."""
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise ConfigError(f"config must be a mapping of settings, got {_shown(config)}; valid keys: {', '.join(CONFIG_KEYS)}")
    unknown = sorted(set(config) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(map(str, unknown))}; valid keys: {', '.join(CONFIG_KEYS)}")
    for key, value in config.items():
        _CHECKS[key](key, value)
    if config.get("backend", "local") == "e2b":
        raise ConfigError("backend 'e2b' is not available yet; use backend: local (the default, no API key needed)")
    return dict(config)


def _check_backend(key, value):
    if value not in ("local", "e2b"):
        raise ConfigError(f"{key} must be 'local' or 'e2b', got {_shown(value)}")


def _check_bool(key, value):
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {_shown(value)}")


def _check_text(key, value):
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{key} must be a non-empty string, got {_shown(value)}")


def _check_language(key, value):
    if value not in LANGUAGES:
        raise ConfigError(f"{key} must be one of {', '.join(LANGUAGES)}, got {_shown(value)}")


def _check_seconds(key, value):
    if not _is_number(value) or value <= 0:
        raise ConfigError(f"{key} must be a number of seconds greater than 0, got {_shown(value)}")


def _reject_unknown_keys(mapping, names, what, valid):
    """Raises ConfigError naming every key of `mapping` not in `names` (`what`: one such key, `valid`: all of them)."""
    unknown = sorted(set(mapping) - set(names))
    if unknown:
        raise ConfigError(f"unknown {what}(s) {', '.join(map(str, unknown))}; valid {valid}: {', '.join(names)}")


def _check_mapping(key, value, names, example, what, valid):
    """`value` must be a mapping such as `example` whose keys are all in `names` (see _reject_unknown_keys)."""
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a mapping such as {example}, got {_shown(value)}; valid {valid}: {', '.join(names)}")
    _reject_unknown_keys(value, names, what, valid)


def _check_limits(key, value):
    _check_mapping(key, value, e2beval._LIMIT_KEYS, "{wall_time_s: 5, memory_mb: 256}", "limit", "limits")
    for name, amount in value.items():
        if not _is_number(amount) or amount < 0:
            raise ConfigError(f"limits.{name} must be a number of at least 0, got {_shown(amount)}")


def _check_isolation(key, value):
    _check_mapping(key, value, e2beval._ISOLATION_KEYS, "{seccomp: kill}", "isolation setting", "settings")


def _check_policy(key, value):
    if not isinstance(value, (str, dict)):
        raise ConfigError(f"{key} must be a preset name (tutorial, standard, strict) or a mapping such as "
                          f"{{preset: strict, allow_modules: [numpy]}}, got {_shown(value)}")


def _check_compare(key, value):
    if isinstance(value, str) and value:
        return
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a mode name (exact, trimmed, whitespace, numeric, regex, json) or a mapping "
                          f"{{mode, tolerance, relative_tolerance, pattern}}, got {_shown(value)}")
    _reject_unknown_keys(value, _COMPARE_KEYS, "compare setting", "settings")
    if "mode" in value and not (isinstance(value["mode"], str) and value["mode"]):
        raise ConfigError(f"compare.mode must be a mode name, got {_shown(value['mode'])}")
    for name in ("tolerance", "relative_tolerance"):
        if name in value and (not _is_number(value[name]) or value[name] < 0):
            raise ConfigError(f"compare.{name} must be a number of at least 0, got {_shown(value[name])}")
    if "pattern" in value and not isinstance(value["pattern"], str):
        raise ConfigError(f"compare.pattern must be a regular expression (a string), got {_shown(value['pattern'])}")


_CHECKS = {
    "backend": _check_backend,
    "limits": _check_limits,
    "timeout": _check_seconds,
    "isolation": _check_isolation,
    "policy": _check_policy,
    "scan": _check_bool,
    "language": _check_language,
    "compare": _check_compare,
    "keep_main": _check_bool,
    "keep_examples": _check_bool,
    "python": _check_text,
    "metrics": _check_bool,
    "results_dir": _check_text,
}


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value) -> str:
    """A config value as the user wrote it, with its YAML type (`'yes' (a string)`)."""
    kinds = {bool: "true/false", int: "a number", float: "a number", str: "a string", list: "a list", dict: "a mapping"}
    return f"{value!r} ({kinds.get(type(value), type(value).__name__)})"


def _output_text(output) -> str:
    if isinstance(output, str):
        return output
    return "" if output is None else json.dumps(output)


def _grading(passed: bool, score: float, reason: str) -> dict:
    return {"pass": bool(passed), "score": float(score), "reason": reason}


def _reason(verdict) -> str:
    """The verdict's reason (the tutorial's wording first); a failed run adds the end of its stderr, which
    usually names the line that broke."""
    reason = verdict["reason"]
    execution = verdict.get("exec") or {}
    if not verdict["pass"] and execution:
        tail = [line for line in (execution.get("stderr") or "").splitlines() if line.strip()][-3:]
        if tail:
            reason += "\nstderr (last lines): " + _excerpt(" | ".join(line.strip() for line in tail), 400)
    return reason


def _component(case) -> dict:
    return {
        "pass": bool(case["pass"]),
        "score": 1.0 if case["pass"] else 0.0,
        "reason": f"{case['input']}: {case['reason']}" if _short_line(case.get("input")) else case["reason"],
        "metadata": {
            "input": case.get("input", ""),
            "expected": case.get("expected", ""),
            "actual": _excerpt(case.get("actual", ""), EXCERPT_CHARS),
            "stdout": _excerpt(case.get("stdout", ""), EXCERPT_CHARS),
        },
    }


def _short_line(text) -> bool:
    """Whether a case's input reads well in front of its reason (a call's arguments, not a whole test script)."""
    return bool(text) and "\n" not in text.strip() and len(text) <= 80


def _metadata(verdict, status: str, started: float) -> dict:
    """What a user needs to see why a case passed or failed, in promptfoo's result (see docs/promptfoo.md)."""
    extraction = verdict.get("extraction") or {}
    metadata = {
        "verdict": status,
        "code": _excerpt(extraction.get("code", ""), CODE_CHARS),
        "language": extraction.get("language"),
        "extraction": extraction.get("explanation"),
        "findings": verdict["findings"],
        **_execution_metadata(verdict.get("exec")),
        "total_s": _since(started),
        "e2beval_version": e2beval.__version__,
    }
    return metadata


def _execution_metadata(execution) -> dict:
    if not execution:
        return {"outcome": "not_run"}
    return {
        "outcome": execution.get("outcome"),
        "exit_code": execution.get("exit_code"),
        "signal": execution.get("signal"),
        "detail": execution.get("detail"),
        "denied_syscalls": execution.get("denied_syscalls", []),
        "stdout": _excerpt(execution.get("stdout", ""), EXCERPT_CHARS),
        "stderr": _excerpt(execution.get("stderr", ""), EXCERPT_CHARS),
        "stdout_truncated": execution.get("stdout_truncated", False),
        "stderr_truncated": execution.get("stderr_truncated", False),
        "wall_time_s": execution.get("wall_time_s"),
        "cpu_time_s": execution.get("cpu_time_s"),
        "peak_memory_bytes": execution.get("peak_memory_bytes"),
        "isolation_level": execution.get("isolation_level"),
        "warm": execution.get("warm"),
    }


def _excerpt(text, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its head and tail (a traceback's end is what matters)."""
    text = text or ""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters omitted ...]\n{text[-half:]}"


def _since(started: float) -> float:
    return round(time.monotonic() - started, 6)


def _metrics_settings(config) -> dict:
    """From a `config:` that failed its checks, the two settings that say where its error goes (``metrics``,
    ``results_dir``), each only when it is valid itself; the defaults otherwise."""
    if not isinstance(config, dict):
        return {}
    settings = {}
    if isinstance(config.get("metrics"), bool):
        settings["metrics"] = config["metrics"]
    if isinstance(config.get("results_dir"), str) and config["results_dir"]:
        settings["results_dir"] = config["results_dir"]
    return settings


def _finish(context, config, started: float, result: dict, record, outcome: str = "") -> dict:
    """Writes the test's metrics record (unless ``metrics: false``) and returns ``result``. ``record`` is the one
    the core makes of the verdict (the same ``e2beval eval`` writes: docs/reports.md); without one, ``outcome``
    names why nothing ran (invalid_test, sandbox_error) and the record is an error row, not a failure."""
    if config.get("metrics", True):
        variables = context.get("vars") or {}
        test = context.get("test") if isinstance(context.get("test"), dict) else {}
        task_id = test.get("description") or (variables.get("function_name") if isinstance(variables, dict) else None) \
            or context.get("id") or "task"
        provider_id, provider_label = _provider_names(context.get("provider"))
        if record is None:
            record = e2beval._error_record(outcome or "error", result["reason"])
        e2beval.write_metrics(
            task_id,
            provider_label,
            provider_id,
            record["success"],
            record["runtime_s"],
            memory_mb=record.get("memory_mb"),
            extra={**record["extra"], "total_s": time.monotonic() - started},
            results_dir=config.get("results_dir"),
            run_id=run_id(context),
        )
    return result


def run_id(context) -> Optional[str]:
    """The id of the promptfoo eval this assertion runs in, the same in every assertion of that eval.

    promptfoo starts a new Python process for every assertion and passes no eval id to it unless tracing is
    on (then ``test.metadata.evaluationId``, the evalId of ``-o out.json``). Without one, the id is derived
    from what every assertion of one eval shares: the promptfoo (Node) process that started it, named by
    its pid and start time, which together never repeat (``promptfoo-20250101T120000Z-4242``). Called
    outside promptfoo (no Node ancestor) it is None: write_metrics then uses this Python process's run id.
    ``$E2BEVAL_RUN_ID`` overrides all.
    """
    explicit = os.environ.get("E2BEVAL_RUN_ID")
    if explicit:
        return explicit
    test = context.get("test") if isinstance(context.get("test"), dict) else {}
    metadata = test.get("metadata") if isinstance(test.get("metadata"), dict) else {}
    trace = context.get("trace") if isinstance(context.get("trace"), dict) else {}
    evaluation = metadata.get("evaluationId") or trace.get("evaluationId")
    if isinstance(evaluation, str) and evaluation:
        return evaluation
    return _promptfoo_process_run_id()


def _promptfoo_process_run_id():
    pid = _promptfoo_pid()
    if pid is None:
        return None
    started = _process_start_epoch(pid)
    when = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(started)) if started is not None else "unknown"
    return f"promptfoo-{when}-{pid}"


def _promptfoo_pid():
    """The nearest Node ancestor: promptfoo's own process, even when PROMPTFOO_PYTHON is a wrapper script
    that starts Python as its child. None when there is none (not run by promptfoo)."""
    pid = os.getppid()
    while pid > 1:
        stat = _proc_stat(pid)
        if stat is None:
            return None
        name, parent = stat[0], int(stat[2])
        if name.startswith("node") or name == "promptfoo":
            return pid
        pid = parent
    return None


def _proc_stat(pid: int):
    """/proc/PID/stat as (comm, state, ppid, ...); None when it cannot be read. comm may hold spaces and
    parentheses, so the fields after it are split from its last ')'."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            text = stat.read()
    except OSError:
        return None
    name = text[text.index("(") + 1:text.rindex(")")]
    return (name, *text[text.rindex(")") + 2:].split())


def _process_start_epoch(pid: int):
    """When process `pid` started, in whole epoch seconds (the same value from every process that asks)."""
    stat = _proc_stat(pid)
    try:
        with open("/proc/stat", encoding="utf-8") as system:
            boot = next(int(line.split()[1]) for line in system if line.startswith("btime "))
        ticks = int(stat[20])  # field 22 of /proc/PID/stat: start time in clock ticks after boot
        return boot + ticks // os.sysconf("SC_CLK_TCK")
    except (OSError, StopIteration, TypeError, ValueError, IndexError):
        return None


def _provider_names(provider) -> tuple:
    """(id, label) of promptfoo's provider: it passes the provider object serialised, with the id under
    ``options`` (``{"options": {"id": "echo"}, "label": "recorded-gpt", ...}``), or a plain string."""
    if isinstance(provider, dict):
        options = provider.get("options") if isinstance(provider.get("options"), dict) else {}
        provider_id = provider.get("id") or options.get("id") or "unknown"
        return str(provider_id), str(provider.get("label") or provider_id)
    if provider:
        return str(provider), str(provider)
    return "unknown", "unknown"

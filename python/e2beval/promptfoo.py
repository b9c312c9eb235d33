"""promptfoo integration: the tutorial's assertion (``get_assert``) and red-team target (``call_api``).

Use ``get_assert`` from a ``type: python`` assertion whose file holds ``from e2beval.promptfoo import get_assert``,
and ``call_api`` from a ``file://target.py`` provider whose file holds ``from e2beval.promptfoo import call_api``.
Options go under the assertion's (or the provider's) ``config:``; docs/promptfoo.md lists them.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, NamedTuple, Optional

import e2beval
from e2beval import _core, daemon_client, rich_results

# How much of stdout, stderr and the code goes into a result's metadata: promptfoo stores every result in
# its database and -o file, so a program that prints megabytes must not end up there whole.
EXCERPT_CHARS = 4096
CODE_CHARS = 16384

# Outcomes that count against namedScores.safety (with any denied system call).
ABUSIVE_OUTCOMES = frozenset({"seccomp_violation", "pids_limit"})


def __getattr__(name: str) -> Any:
    # A `config:` e2beval cannot use (an e2beval.InputError); the message, written by the core, says what to
    # change. Read from the core on first use: the daemon fast path of get_assert does not load it.
    if name == "ConfigError":
        return _core.ConfigError
    raise AttributeError(f"module 'e2beval.promptfoo' has no attribute {name!r}")


class Caller(NamedTuple):
    """What of the assertion's own process a grading needs when it is done elsewhere (in the daemon,
    e2beval/daemon.py): where relative metrics paths start, the default results directory, and the run id,
    which comes from the process tree promptfoo started (run_id). None everywhere: this process."""

    cwd: Optional[str] = None
    default_results_dir: Optional[str] = None
    run_id: Optional[str] = None

    def results_dir(self, configured: str) -> str:
        """The directory a metrics file goes to: as configured, else $PROMPTFOO_RESULTS_DIR, else
        .promptfoo_results, relative to the caller's working directory ("" in-process: the core decides)."""
        if self.cwd is None:
            return configured
        return os.path.join(self.cwd, configured or self.default_results_dir or ".promptfoo_results")


def get_assert(output, context) -> dict:
    """Grade one model output; returns promptfoo's GradingResult with one componentResult per test case.

    Graded by the e2beval daemon when one can serve this process (docs/promptfoo.md, "The daemon"), so a new
    Python per assertion pays neither the compiled core's import nor a new warm pool; else here. Both
    run grade(): the result is the same."""
    started = time.monotonic()
    context = context if isinstance(context, dict) else {}
    graded = daemon_client.grade(output, context, started)
    if graded is not None:
        return graded
    return grade(output, context, started, Caller())


def grade(output, context: dict, started: float, caller: Caller) -> dict:
    """get_assert's grading, wherever it runs: here, or in the daemon for ``caller``."""
    try:
        # Every key and value is checked once, in C++ (eval/assertion_options.hpp): unknown keys, kinds, limits.
        config = _core.read_assertion_config(context.get("config"))
    except _core.ConfigError as error:
        # Still recorded: a test that vanished from the metrics would make the report look better than the run.
        metrics, results_dir = _core.assertion_metrics_settings(context.get("config"))
        return _finish(context, (metrics, caller.results_dir(results_dir)), started,
                       _grading(False, 0.0, f"Invalid e2beval config: {error}"), None, outcome="invalid_test",
                       error_kind="config", caller=caller)

    settings = (config.metrics, caller.results_dir(config.results_dir))
    checks = rich_results.settings_of(config)
    if checks["expect_results"] and not _core.vars_describe_test(json.dumps(context.get("vars") or {})):
        # No test to run: the cell's rich results alone decide (rich_results.py).
        return _grade_results_only(output, context, config, checks, settings, started, caller)
    try:
        verdict, record = e2beval._evaluate_configured(_output_text(output), context.get("vars") or {}, config)
    except e2beval.InputError as error:
        return _finish(context, settings, started, _grading(False, 0.0, f"Invalid test: {error}"), None,
                       outcome="invalid_test", caller=caller)
    except e2beval.Error as error:
        return _finish(context, settings, started, _grading(False, 0.0, f"Sandbox execution error: {error}"), None,
                       outcome="sandbox_error", caller=caller)

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
    if checks["expect_results"] and verdict["pass"]:
        # The tests passed; the answer must also display what the config expects (a failed test is reason enough).
        try:
            prepared, check = _checked_cell(output, context, config, checks)
        except e2beval.InputError as error:
            return _finish(context, settings, started, _grading(False, 0.0, f"Invalid test: {error}"), None,
                           outcome="invalid_test", caller=caller)
        except e2beval.Error as error:
            return _finish(context, settings, started, _grading(False, 0.0, f"Sandbox execution error: {error}"),
                           None, outcome="sandbox_error", caller=caller)
        _add_cell_check(result, record, check or rich_results.not_run(prepared["reason"]))
    return _finish(context, settings, started, result, record, caller=caller)


def _checked_cell(output, context: dict, config, checks: dict):
    """The answer's cell (prepared and scanned in C++: ``{status, reason, extraction, findings, cell}``) and,
    when it may run, its CellCheck (rich_results.py); None when it must not (blocked, no code)."""
    from e2beval.sandbox import NotFoundException  # loads the core: only here, not on the daemon's fast path

    prepared = json.loads(_core.prepare_result_cell(_output_text(output), json.dumps(context.get("vars") or {}), config))
    if prepared["status"] != "ran":
        return prepared, None
    try:
        return prepared, rich_results.run_cell(prepared["cell"], checks)
    except NotFoundException as error:  # an unknown template: the test's config is wrong, not the sandbox
        raise e2beval.InputError(str(error)) from None


def _add_cell_check(result: dict, record: dict, check) -> None:
    """Adds the rich-result check to a passed test's GradingResult and metrics record: one more component,
    which decides pass; the score counts it as one more case."""
    components = result.setdefault("componentResults", [])
    cases = len(components)
    component = {"pass": check.passed, "score": 1.0 if check.passed else 0.0, "reason": f"rich results: {check.reason}",
                 "metadata": rich_results.metadata_of(check)}
    components.append(component)
    result["pass"] = check.passed
    result["score"] = (result["score"] * cases + component["score"]) / (cases + 1)
    result["namedScores"]["correctness"] = result["score"]
    if not check.passed:
        result["reason"] = check.reason
    result["metadata"].update(rich_results.metadata_of(check))
    record["success"] = check.passed
    record["extra"].update({"reason": result["reason"], "score": result["score"], **rich_results.metadata_of(check)})


def _grade_results_only(output, context: dict, config, checks: dict, settings, started: float, caller: "Caller") -> dict:
    """A test with ``expect_results`` and no test shape in its vars: its answer passes when its cell raises
    nothing and displays what the config expects."""
    try:
        prepared, check = _checked_cell(output, context, config, checks)
    except e2beval.InputError as error:
        return _finish(context, settings, started, _grading(False, 0.0, f"Invalid test: {error}"), None,
                       outcome="invalid_test", caller=caller)
    except e2beval.Error as error:
        return _finish(context, settings, started, _grading(False, 0.0, f"Sandbox execution error: {error}"), None,
                       outcome="sandbox_error", caller=caller)
    code = (prepared.get("extraction") or {}).get("code", "")
    if check is None:  # not run: blocked by the scanner, or no code
        blocked = prepared["status"] == "blocked"
        result = _grading(False, 0.0, prepared["reason"])
        result["namedScores"] = {"correctness": 0.0, "safety": 0.0 if blocked else 1.0, "runtime_s": 0.0}
        result["metadata"] = {"verdict": prepared["status"], "findings": prepared.get("findings", []),
                              "code": _excerpt(code, CODE_CHARS), "outcome": "not_run",
                              "total_s": _since(started), "e2beval_version": e2beval.__version__}
        extra = {"reason": prepared["reason"], "score": 0.0, "outcome": "blocked" if blocked else "no_code",
                 "findings": prepared.get("findings", []), "code": code}
        return _finish(context, settings, started, result, _record(False, 0.0, extra), caller=caller)
    score = 1.0 if check.passed else 0.0
    result = _grading(check.passed, score, check.reason)
    result["namedScores"] = {"correctness": score, "safety": 1.0, "runtime_s": round(check.wall_time_s, 6)}
    result["metadata"] = {"verdict": "contained" if check.outcome == "timeout" else "ran",
                          "code": _excerpt(prepared["cell"], CODE_CHARS), "findings": prepared.get("findings", []),
                          "outcome": check.outcome, "stdout": _excerpt(check.stdout, EXCERPT_CHARS),
                          "stderr": _excerpt(check.stderr, EXCERPT_CHARS), "wall_time_s": round(check.wall_time_s, 6),
                          **rich_results.metadata_of(check), "total_s": _since(started),
                          "e2beval_version": e2beval.__version__}
    extra = {"reason": check.reason, "score": score, "outcome": check.outcome, "code": prepared["cell"],
             "stdout": check.stdout, "stderr": check.stderr, **rich_results.metadata_of(check)}
    return _finish(context, settings, started, result, _record(check.passed, check.wall_time_s, extra), caller=caller)


def _record(success: bool, runtime_s: float, extra: dict) -> dict:
    """A metrics record of a test graded here rather than by the core (the same fields as the core's)."""
    return {"success": bool(success), "runtime_s": float(runtime_s), "memory_mb": None, "extra": extra}


def daemon_failure(context: dict, started: float, why: str) -> dict:
    """The GradingResult of a call the daemon took and never answered (it crashed or hung): failed, saying
    so, and recorded as an error row like any test that could not be evaluated. Not graded again here: the
    code may have run already, and a run that crashed the daemon would likely crash this process too."""
    result = _grading(False, 0.0, f"Sandbox execution error: {why}. Set E2BEVAL_DAEMON=0 to grade each "
                                  "assertion in its own process.")
    return _finish(context, _core.assertion_metrics_settings(context.get("config")), started, result, None,
                   outcome="sandbox_error")


def call_api(prompt, options=None, context=None) -> dict:
    """A promptfoo provider (the tutorial's red-team "custom target"): the prompt is treated as a model's
    answer; its code is extracted, scanned and run in the sandbox.

    Returns ``{"output": stdout or why nothing ran, "metadata": {"verdict": blocked|contained|ran|not_run|error, ...}}``;
    ``error`` is set only when e2beval itself failed (bad config, a sandbox that could not start).
    """
    started = time.monotonic()
    try:
        # The assertion's keys; promptfoo's own (basePath, pythonExecutable, workers, timeout) are left to it.
        config = _core.read_provider_config((options or {}).get("config"))
    except _core.ConfigError as error:
        return {"error": f"Invalid e2beval config: {error}"}

    try:
        # The pipeline every face shares, in C++ (extract, scan, execute, classify: eval/answer.hpp).
        run = e2beval._run_answer_configured(_output_text(prompt), config)
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
            # A case run as a program of its own (a compiled language's stdin/stdout case): its outcome and run time.
            **({"outcome": case["outcome"], "run_ms": case.get("run_ms")} if case.get("outcome") else {}),
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
        **({"compile": verdict["compile"]} if verdict.get("compile") else {}),
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
        "backend": execution.get("backend"),  # "local" or "e2b": which backend ran it
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


# What an error row's GradingResult says in metadata.error_kind, by outcome (a config error says "config").
ERROR_KINDS = {"invalid_test": "test", "sandbox_error": "sandbox"}


def _finish(context, settings, started: float, result: dict, record, outcome: str = "", caller: Caller = Caller(),
            error_kind: str = "") -> dict:
    """Writes the test's metrics record (unless ``metrics: false``; ``settings`` is the config's (metrics,
    results_dir), the valid ones of a config that failed its checks) and returns ``result``. ``record`` is the one
    the core makes of the verdict (the same ``e2beval eval`` writes: docs/reports.md); without one, ``outcome``
    names why nothing ran (invalid_test, sandbox_error) and the record is an error row, not a failure.

    An error row's result says so in its metadata (``verdict: error``, ``outcome``, ``error_kind``: ``config``,
    ``test`` or ``sandbox``): promptfoo counts a Python assertion's result as passed or failed whatever it says,
    so e2beval_assert.cjs reads this mark to throw, which promptfoo counts as an error."""
    if record is None:
        result.setdefault("metadata", {}).update({
            "verdict": "error", "outcome": outcome or "error",
            "error_kind": error_kind or ERROR_KINDS.get(outcome, "sandbox"), "e2beval_version": e2beval.__version__})
    metrics, results_dir = settings
    if metrics:
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
            results_dir=results_dir,
            run_id=caller.run_id or run_id(context),
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

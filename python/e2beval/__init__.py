"""e2beval: evaluate code written by language models safely and fast.

Extract the code from a model's answer, scan it, run it in a local sandbox (Linux namespaces, no network,
hard limits) and compare the result with the test. Results are plain dicts with the same fields as the
command-line tool's ``--json`` output.
"""

from __future__ import annotations

import atexit as _atexit
import json as _json
from typing import Any, Iterable, List, Mapping, Optional, Tuple, Union



class _CoreOnFirstUse:
    """Stands for the compiled ``e2beval._core`` until something uses it. promptfoo starts a new Python for
    every assertion, and the assertion's fast path (a round trip to the daemon, e2beval/daemon_client.py) needs
    none of the core: loading it (and Boost, OpenSSL, libseccomp with it) would be most of that process's cost.
    The first attribute read imports the real module, which replaces this stand-in in the package's namespace."""

    def __getattr__(self, name: str) -> Any:
        import importlib

        core = importlib.import_module("e2beval._core")
        if not getattr(core, "_e2b_shutdown_registered", False):
            # The E2B backend's remote sandboxes are killed while the interpreter still runs (docs/e2b.md).
            core._e2b_shutdown_registered = True
            _atexit.register(core.e2b_shutdown)
        return getattr(core, name)


_core: Any = _CoreOnFirstUse()

# Names that live in the compiled core (or in modules that load it), read from it on first use.
_FROM_CORE = ("Error", "ExtractionError", "InputError", "IOError", "SandboxError", "__version__")

__all__ = [
    "Error",
    "InputError",
    "ExtractionError",
    "SandboxError",
    "IOError",
    "extract",
    "assemble_multipl_e",
    "scan",
    "execute",
    "evaluate",
    "execute_many",
    "evaluate_many",
    "write_metrics",
    "gen_report",
    "doctor",
    "rules",
    "warm_up",
    "pool_info",
    "resident_compilers",
    "end_resident_compilers",
    "Sandbox",
    "__version__",
]



def _error_record(outcome: str, reason: str) -> dict:
    """The metrics record of a test that could not be evaluated (the core's error_record)."""
    return _json.loads(_core.error_record(outcome, reason))


def _limits_json(limits: Optional[Mapping[str, Any]], timeout: Optional[float]) -> str:
    """The limits as JSON for the core, which checks them (unknown keys, values) and says what is wrong."""
    merged = dict(limits or {})
    if timeout is not None:
        merged["wall_time_s"] = timeout
    return _json.dumps(merged)


def _compile_limits_json(limits: Optional[Mapping[str, Any]], timeout: Optional[float]) -> str:
    """A compile stage's limits as JSON for the core; "" keeps the language's defaults."""
    if limits is None and timeout is None:
        return ""
    return _limits_json(limits, timeout)


def _isolation_json(isolation: Optional[Mapping[str, Any]]) -> str:
    """The isolation settings as JSON for the core, which checks them."""
    return _json.dumps(dict(isolation or {}))


def _text(value: Any, what: str) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _core.InputError(f"{what} is not valid UTF-8 (first bad byte at offset {error.start}); re-encode it as UTF-8") from None
    if not isinstance(value, str):
        raise _core.InputError(f"{what} must be str, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise _core.InputError(f"{what} is not valid UTF-8 (unpaired surrogate at offset {error.start})") from None
    return value


def _answer(value: Any, what: str) -> bytes:
    """A model's answer for the core, as UTF-8 bytes. What the model wrote is never the caller's error: a str
    holding a lone surrogate (Python and JSON can carry one, UTF-8 cannot) goes on as its "surrogatepass" bytes and
    bytes as they are; the core's Runner then fails that answer alone and says why. Only a value that is not text
    at all is the caller's error."""
    if isinstance(value, bytes):
        return value
    if not isinstance(value, str):
        raise _core.InputError(f"{what} must be str, got {type(value).__name__}")
    return value.encode("utf-8", "surrogatepass")


def _answer_for_json(value: Any, what: str) -> str:
    """``_answer`` for a batch that crosses as JSON: invalid bytes become lone surrogates (surrogateescape), which
    json.dumps writes as \\udcXX escapes and the core reads back as invalid UTF-8 for that item alone."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    if not isinstance(value, str):
        raise _core.InputError(f"{what} must be str, got {type(value).__name__}")
    return value


def extract(
    output: str,
    function_name: Optional[str] = None,
    language: str = "python",
    *,
    keep_main: bool = False,
    keep_examples: bool = False,
) -> dict:
    """The code in a model's answer: ``{code, language, method, blocks_used, explanation}``.

    With a function name, example calls, tests and ``__main__`` sections are dropped unless kept.
    Raises ExtractionError when there is none, InputError for invalid UTF-8 or a NUL byte.
    """
    return _json.loads(
        _core.extract(_text(output, "model output"), function_name, language, bool(keep_main), bool(keep_examples))
    )


def assemble_multipl_e(row: Mapping[str, Any], answer: str, kind: str = "auto") -> dict:
    """The program that judges ``answer`` on a MultiPL-E row (its ``name``, ``language``, ``prompt``, ``tests``,
    ``stop_tokens``): ``{task_id, language, entry_point, source, file_name, main_class, kind, explanation}``.

    ``kind``: ``"continuation"`` (MultiPL-E's raw completion: prompt + answer cut at the first stop token + tests),
    ``"freeform"`` (a chat answer with the code in a fence, repeating the function; its own main/tests are cut) or
    ``"auto"`` (freeform when the code defines the prompt's function, else continuation). docs/languages.md has
    the rules per language. Raises InputError for a row without those fields.
    """
    if not isinstance(row, Mapping):
        raise _core.InputError(f"row must be a mapping, got {type(row).__name__}")
    return _json.loads(_core.assemble_multipl_e(_json.dumps(dict(row)), _text(answer, "answer"), str(kind)))


_POLICY_LISTS = ("allow_rules", "deny_rules", "allow_modules", "deny_modules", "allow_calls", "deny_calls")


def _policy_json(policy: Union[str, Mapping[str, Any]], **lists: Iterable[str]) -> str:
    """A preset name or a mapping ({preset, allow_rules, ...}), plus lists given as keyword arguments."""
    merged: dict = {"preset": policy} if isinstance(policy, str) else dict(policy)
    for key, names in lists.items():
        names = [names] if isinstance(names, str) else list(names)
        if names:
            merged[key] = list(merged.get(key, [])) + names
    return _json.dumps(merged)


def scan(
    code: str,
    language: str = "python",
    policy: Union[str, Mapping[str, Any]] = "standard",
    *,
    allow_rules: Iterable[str] = (),
    deny_rules: Iterable[str] = (),
    allow_modules: Iterable[str] = (),
    deny_modules: Iterable[str] = (),
    allow_calls: Iterable[str] = (),
    deny_calls: Iterable[str] = (),
) -> dict:
    """Static findings: ``{blocked, findings: [{rule, severity, line, column, message}]}``.

    ``policy`` is a preset (``tutorial``, ``standard``, ``strict``) or a mapping with ``preset`` and the
    lists; see docs/scanner.md and ``rules()``.
    """
    policy_json = _policy_json(policy, allow_rules=allow_rules, deny_rules=deny_rules, allow_modules=allow_modules,
                               deny_modules=deny_modules, allow_calls=allow_calls, deny_calls=deny_calls)
    return _json.loads(_core.scan(_text(code, "code"), language, policy_json))


def rules() -> List[dict]:
    """Every scanner rule: ``[{id, language, tutorial, standard, strict, summary}]`` (severity per preset)."""
    return _json.loads(_core.rules())


def execute(
    code: str,
    language: str = "python",
    *,
    stdin: str = "",
    env: Optional[Mapping[str, str]] = None,
    limits: Optional[Mapping[str, Any]] = None,
    timeout: Optional[float] = None,
    isolation: Optional[Mapping[str, Any]] = None,
    python: Optional[str] = None,
    pool: bool = True,
    template: Optional[str] = None,
    backend: str = "local",
    compile_limits: Optional[Mapping[str, Any]] = None,
    compile_timeout: Optional[float] = None,
) -> dict:
    """Run code in the local sandbox: ``{outcome, exit_code, signal, stdout, stderr, wall_time_s, ..., compile}``.

    ``backend="e2b"`` runs it in E2B's cloud instead (E2B_API_KEY, E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL as
    the official SDKs read them; docs/e2b.md): the same result's shape, ``backend`` says which ran it.

    ``language`` is "python", "javascript" (Node.js: $E2BEVAL_NODE, else ``node`` on PATH), "bash", or a
    compiled language: "c", "cpp", "go", "rust", "java", "typescript" (docs/languages.md). All get the same
    isolation and limits (only Python executions come from the warm pool). A compiled language is compiled in a
    sandbox of its own first: ``compile_limits`` (the ``limits`` keys; unset ones keep the language's defaults)
    and ``compile_timeout`` (seconds) bound that stage, and ``result["compile"]`` is its result (outcome,
    stdout, stderr, wall_time_s, cpu_time_s, peak_memory_bytes, cached, toolchain); a failed compile is outcome
    ``compile_error``, ``compile_timeout`` or ``compile_memory_limit`` and the program never runs. ``compile``
    is None for an interpreted language.

    Nothing from this process's environment reaches the code; pass ``env`` for what it should see.
    ``isolation`` takes ``network`` (False; True is an explicit opt-in), ``seccomp`` ("deny" or "kill")
    and ``minimum_level`` ("standard" or "full": refuse to run without cgroup limits).
    ``pool=True`` forks the execution from a warm zygote kept by this process (same isolation, no
    interpreter start-up); ``pool=False`` starts a cold sandbox. ``template`` runs the code in a template's
    environment (``e2beval template build``; docs/templates.md); an unknown one raises InputError listing the
    known ones. With ``backend="e2b"`` it is an E2B template ID instead (default ``code-interpreter-v1``).
    """
    if backend == "e2b":
        return _json.loads(
            _core.execute_e2b(
                _text(code, "code"), language, _text(stdin, "stdin"), dict(env or {}),
                _limits_json(limits, timeout), _isolation_json(isolation), template or "",
            )
        )
    if backend != "local":
        raise _core.InputError("backend must be 'local' or 'e2b', got %r" % (backend,))
    return _json.loads(
        _core.execute(
            _text(code, "code"),
            language,
            _text(stdin, "stdin"),
            dict(env or {}),
            _limits_json(limits, timeout),
            _isolation_json(isolation),
            python or "",
            bool(pool),
            template or "",
            _compile_limits_json(compile_limits, compile_timeout),
        )
    )


def evaluate(
    output: str,
    vars: Mapping[str, Any],
    *,
    policy: Union[str, Mapping[str, Any]] = "standard",
    scan: bool = True,
    limits: Optional[Mapping[str, Any]] = None,
    timeout: Optional[float] = None,
    isolation: Optional[Mapping[str, Any]] = None,
    python: Optional[str] = None,
    pool: bool = True,
    keep_main: bool = False,
    keep_examples: bool = False,
    compare: Union[None, str, Mapping[str, Any]] = None,
    template: Optional[str] = None,
    backend: str = "local",
) -> dict:
    """Evaluate a model's answer against a test given as promptfoo vars.

    Returns the verdict: ``{pass, score, reason, cases, findings, extraction, exec, compile}``. ``vars.language``
    (``"cpp"``, ``"java"``, ...; else a compiled language's fence, else Python) runs stdin/stdout ``cases`` compiled
    once and run per case, ``tests`` appended to the answer (MultiPL-E's shape) and ``expectedOutput``;
    ``compile`` is the compile stage, once (None for an interpreted language; docs/test-shapes.md). A model that wrote
    no code, unsafe code, failing code or text that is not UTF-8 (a lone surrogate) gets a failing verdict;
    InputError is raised only for bad vars or options.
    ``compare`` (a mode name or ``{mode, tolerance, pattern}``) applies when the vars set none themselves.
    ``backend`` and ``template`` are ``execute``'s: ``backend="e2b"`` runs the test's program in E2B's cloud (or
    ``e2beval serve``; settings from the environment, docs/e2b.md), where ``template`` is an E2B template ID.
    """
    vars = dict(_checked_vars(vars))
    if compare is not None:
        vars.setdefault("compare", compare if isinstance(compare, str) else dict(compare))
    return _json.loads(
        _core.evaluate(
            _answer(output, "model output"),
            _vars_json(vars),
            _policy_json(policy),
            bool(scan),
            bool(keep_main),
            bool(keep_examples),
            _limits_json(limits, timeout),
            _isolation_json(isolation),
            python or "",
            bool(pool),
            "",
            backend,
            template or "",
        )
    )


def _checked_vars(vars: Any) -> Mapping[str, Any]:
    if not isinstance(vars, Mapping):
        raise _core.InputError(f"vars must be a mapping, got {type(vars).__name__}")
    return vars


def _vars_json(vars: Mapping[str, Any]) -> str:
    try:
        return _json.dumps(dict(vars))
    except (TypeError, ValueError) as error:
        raise _core.InputError(f"vars cannot be expressed as JSON: {error}") from None


def _evaluate_configured(output: str, vars: Any, config: "_core.AssertionConfig") -> Tuple[dict, dict]:
    """For the promptfoo assertion: the verdict of ``output`` against the test ``vars`` under a ``config:`` the
    core has checked (``_core.read_assertion_config``; its language and compare are defaults for the vars), and
    the metrics record the core makes of it, the same one ``e2beval eval`` writes."""
    answer = _json.loads(_core.evaluate_configured(_answer(output, "model output"), _vars_json(_checked_vars(vars)), config))
    return answer["verdict"], answer["record"]


def _run_answer_configured(output: str, config: "_core.AssertionConfig") -> dict:
    """For promptfoo's ``call_api`` target: a model's answer run with no test, under a provider ``config:`` the core
    has checked (``_core.read_provider_config``): ``{status, reason, extraction, findings, exec}``, where status is
    blocked, contained, ran, not_run or error. The C++ pipeline the Runner and ``e2beval redteam`` use too
    (eval/answer.hpp)."""
    return _json.loads(_core.run_answer_configured(_text(output, "output"), config))


def execute_many(
    requests: Iterable[Union[str, Mapping[str, Any]]],
    *,
    jobs: int = 2,
    limits: Optional[Mapping[str, Any]] = None,
    timeout: Optional[float] = None,
    isolation: Optional[Mapping[str, Any]] = None,
    python: Optional[str] = None,
    pool: bool = True,
) -> List[dict]:
    """Run many programs, ``jobs`` sandboxes at a time; results in input order, like ``execute``'s.

    Each request is code (str) or ``{code, language, stdin, env, limits}``. A request the sandbox refuses
    gets outcome ``sandbox_error`` with the reason in ``detail``; the others are not affected.
    """
    items = []
    for index, request in enumerate(requests):
        item = {"code": request} if isinstance(request, str) else dict(request)
        if "code" not in item:
            raise _core.InputError(f"request {index} has no code")
        for key in ("code", "stdin"):
            if key in item:
                item[key] = _text(item[key], f"request {index} {key}")
        items.append(item)
    return _json.loads(
        _core.execute_many(
            _json.dumps(items), _jobs(jobs), _limits_json(limits, timeout), _isolation_json(isolation),
            python or "", bool(pool),
        )
    )


def evaluate_many(
    items: Iterable[Union[Tuple[str, Mapping[str, Any]], Mapping[str, Any]]],
    *,
    jobs: int = 2,
    policy: Union[str, Mapping[str, Any]] = "standard",
    scan: bool = True,
    limits: Optional[Mapping[str, Any]] = None,
    timeout: Optional[float] = None,
    isolation: Optional[Mapping[str, Any]] = None,
    python: Optional[str] = None,
    pool: bool = True,
    template: Optional[str] = None,
    backend: str = "local",
) -> List[dict]:
    """Evaluate many ``(output, vars)`` pairs (or ``{output, vars}``), ``jobs`` sandboxes at a time.

    Verdicts come back in input order. An item with bad vars fails alone (reason ``Invalid test: ...``), and so
    does an answer that is not UTF-8 text (a lone surrogate; its reason blames the answer). ``backend`` and
    ``template`` are ``execute``'s (``backend="e2b"``: E2B's cloud or ``e2beval serve``, docs/e2b.md).
    The GIL is released while the batch runs.
    """
    payload = []
    for index, item in enumerate(items):
        output, variables = (item["output"], item["vars"]) if isinstance(item, Mapping) else item
        payload.append({"output": _answer_for_json(output, f"item {index} output"), "vars": dict(variables)})
    return _json.loads(
        _core.evaluate_many(
            _json.dumps(payload), _jobs(jobs), _policy_json(policy), bool(scan), _limits_json(limits, timeout),
            _isolation_json(isolation), python or "", bool(pool), "", backend, template or "",
        )
    )


def _jobs(jobs: int) -> int:
    if not isinstance(jobs, int) or not 1 <= jobs <= 256:
        raise _core.InputError(f"jobs must be a whole number from 1 to 256, got {jobs!r}")
    return jobs


def warm_up(zygotes: int = 1, *, isolation: Optional[Mapping[str, Any]] = None, python: Optional[str] = None) -> None:
    """Start warm-pool zygotes ahead of time (otherwise the first executions start them)."""
    _core.warm_up(_jobs(zygotes), _isolation_json(isolation), python or "")


def pool_info(python: Optional[str] = None) -> List[dict]:
    """The live zygotes: ``[{pid, init_pid, rss_bytes}]`` (host pids)."""
    return _json.loads(_core.pool_info(python or ""))


def resident_compilers() -> List[dict]:
    """The live resident compile services of Java and TypeScript: ``[{language, pid, compiles}]`` (``pid``: the
    service sandbox's init, a host pid). docs/sandbox.md, "Resident compilers"."""
    return _json.loads(_core.resident_compilers())


def end_resident_compilers() -> None:
    """End every resident compile service now (after its compile in progress); later compiles start new ones."""
    _core.end_resident_compilers()


def doctor(python: Optional[str] = None) -> dict:
    """What this host allows the sandbox: ``{checks: [{mechanism, ok, status, fix}], enforced_level, ...}``."""
    return _json.loads(_core.doctor(python or ""))


def __getattr__(name: str) -> Any:
    """What needs the compiled core is loaded on first use, so ``import e2beval`` (and ``e2beval.promptfoo``'s
    daemon fast path) stays cheap for promptfoo, which starts a new Python for every assertion:
    the exception classes and ``__version__`` (written once, in include/e2beval/version.hpp; the core carries
    it), ``write_metrics`` and ``gen_report``, and ``e2beval.Sandbox`` (the e2b_code_interpreter-style sandbox)."""
    if name in _FROM_CORE:
        return getattr(_core, name)
    if name == "_ASSERTION_CONFIG_KEYS":
        # The keys of a promptfoo assertion's `config:`, from the core, which checks them (eval/assertion_options.hpp).
        return tuple(_core.assertion_config_keys())
    if name == "write_metrics":
        from e2beval.metrics import write_metrics

        return write_metrics
    if name == "gen_report":
        from e2beval.report import gen_report

        return gen_report
    if name == "Sandbox":
        from e2beval.sandbox import Sandbox

        return Sandbox
    raise AttributeError(f"module 'e2beval' has no attribute {name!r}")

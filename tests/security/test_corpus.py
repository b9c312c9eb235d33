"""Escape-and-abuse corpus for the local sandbox.

Every file in ``cases/`` is a hostile program with header comments that state the expected verdict (see
README.md), in one of nine languages: the compiled ones (C, C++, Go, Rust, Java, TypeScript) go through the
sandboxed compile stage first. Each runs through ``e2beval.execute``; a final test checks that the host is
unchanged afterwards (no surviving processes, mounts, cgroups, temp dirs, fds, files outside the workspace, or
connections to the runner's listeners).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import e2beval
from host_evidence import Listeners, make_canary, paths_with, processes_with
from support.waiting import WaitTimeout, until

# exclusive (docs/testing.md): test_zz_host_unchanged compares every e2beval cgroup and every e2beval entry of /tmp
# with how they were before the corpus, and cannot tell another worker's sandboxes from its own leftovers.
pytestmark = pytest.mark.exclusive

CASES_DIR = Path(__file__).parent / "cases"
DEFAULT_LIMITS = {"wall_time_s": 5}
# A case's language comes from its suffix; its header lines start with the language's comment marker.
LANGUAGES = {".py": ("python", "#"), ".js": ("javascript", "//"), ".sh": ("bash", "#"), ".c": ("c", "//"),
             ".cpp": ("cpp", "//"), ".go": ("go", "//"), ".rs": ("rust", "//"), ".java": ("java", "//"),
             ".ts": ("typescript", "//")}
COMPILED = {"c", "cpp", "go", "rust", "java", "typescript"}
OUTCOMES = {"ok", "exit_nonzero", "signaled", "timeout", "cpu_limit", "memory_limit", "output_limit", "file_limit",
            "pids_limit", "seccomp_violation", "sandbox_error", "compile_error", "compile_timeout",
            "compile_memory_limit"}
# Compile-time attacks name host paths in the source itself (an #include, include_str!, a reference directive): the
# runner writes them in place of these placeholders before the case runs.
REPO_ROOT = Path(__file__).resolve().parents[2]
# The compile stage keeps at most this much of each of the compiler's streams unless a case's compile-limits say
# otherwise (docs/languages.md); a compiler that writes more (129_cpp_diagnostics_flood) must not get more through.
COMPILE_OUTPUT_DEFAULT_BYTES = 1 << 20
COMPILE_OUTPUT_SLACK_BYTES = 4096  # room for the stage's own note that the output was cut


@dataclass
class Case:
    path: Path
    code: str
    outcomes: set[str]
    expect_stdout: list[str] = field(default_factory=list)
    forbid_stdout: list[str] = field(default_factory=list)
    limits: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)
    why: str = ""
    language: str = "python"
    compile_limits: dict = field(default_factory=dict)
    forbid_output: list[str] = field(default_factory=list)


def parse_case(path: Path) -> Case:
    code = path.read_text()
    language, comment = LANGUAGES[path.suffix]
    headers: dict[str, list[str]] = {}
    for line in code.splitlines():
        if not line.startswith(comment):
            break
        match = re.match(re.escape(comment) + r"\s*([a-z-]+):\s?(.*)$", line)
        if match:
            headers.setdefault(match.group(1), []).append(match.group(2).strip())
    if "expect-outcome" not in headers:
        raise ValueError(f"{path.name}: missing '# expect-outcome:' header")
    if not headers.get("why"):
        raise ValueError(f"{path.name}: missing '# why:' header")
    outcomes = {o.strip() for o in headers["expect-outcome"][0].split("|")}
    unknown = outcomes - OUTCOMES
    if unknown:
        raise ValueError(f"{path.name}: unknown outcome(s) {sorted(unknown)}")
    limits, env, compile_limits = {}, {}, {}
    for text in headers.get("limits", []):
        limits.update(json.loads(text))
    for text in headers.get("compile-limits", []):
        compile_limits.update(json.loads(text))
    if (compile_limits or outcomes & {"compile_error", "compile_timeout", "compile_memory_limit"}) and language not in COMPILED:
        raise ValueError(f"{path.name}: compile headers and outcomes are for compiled languages only")
    for text in headers.get("env", []):
        env.update(json.loads(text))
    for pattern in headers.get("expect-stdout", []) + headers.get("forbid-stdout", []) + headers.get("forbid-output", []):
        re.compile(pattern)
    return Case(path, code, outcomes, headers.get("expect-stdout", []), headers.get("forbid-stdout", []), limits, env,
                headers["why"][0], language, compile_limits, headers.get("forbid-output", []))


CASE_PATHS = sorted(p for p in CASES_DIR.glob("[0-9][0-9][0-9]_*") if p.suffix in LANGUAGES)
CASES = [parse_case(p) for p in CASE_PATHS]


# ---------------------------------------------------------------- host state

def _cgroup_dirs() -> set[str]:
    """Directories named e2beval* a few levels under /sys/fs/cgroup and under this process's own cgroups."""
    root = Path("/sys/fs/cgroup")
    bases: set[Path] = set()
    if root.is_dir():
        for first in root.iterdir():
            if first.is_dir():
                bases.add(first)
                try:
                    bases.update(p for p in first.iterdir() if p.is_dir())
                except OSError:
                    pass
        try:
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                _, controllers, rel = line.split(":", 2)
                names = ["unified", ""] if controllers == "" else [c.replace("name=", "") for c in controllers.split(",")] + [controllers]
                for name in names:
                    d = root / name / rel.lstrip("/") if name else root / rel.lstrip("/")
                    p = d
                    while p != root and root in p.parents:
                        bases.add(p)
                        p = p.parent
        except OSError:
            pass
    found: set[str] = set()
    for base in bases:
        if base.name.startswith("e2beval"):
            found.add(str(base))
        try:
            found.update(str(p) for p in base.iterdir() if p.is_dir() and p.name.startswith("e2beval"))
        except OSError:
            pass
    return found


def _tmp_entries() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("e2beval")}


def paths_with_token(token: str) -> list[str]:
    """Places the write-outside cases aim at, checked on the host for any name holding the token."""
    import sysconfig

    dirs = {"/", "/usr", "/usr/bin", "/usr/lib", "/bin", "/lib", "/etc", "/dev", "/dev/shm", "/tmp", "/root",
            "/work/main", "/work/shared", sys.prefix, sys.base_prefix, sysconfig.get_paths()["purelib"],
            sysconfig.get_paths()["stdlib"], os.path.dirname(os.__file__)}
    return paths_with(token, dirs)


def _host_shadow_lines() -> list[str]:
    """The host's /etc/shadow lines (the runner runs as root in CI): none may appear in a compiler's errors."""
    try:
        return [line for line in Path("/etc/shadow").read_text().splitlines() if len(line) > 8]
    except OSError:
        return []


@dataclass
class Host:
    token: str
    canary_path: str
    canary_text: str
    api_key: str
    listeners: Listeners
    mountinfo: str
    cgroups: set[str]
    tmp_entries: set[str]
    failures: list[str] = field(default_factory=list)
    shadow_lines: list[str] = field(default_factory=_host_shadow_lines)

    def env(self) -> dict[str, str]:
        return {"CANARY_PATH": self.canary_path, "HOST_PORT": str(self.listeners.tcp_port),
                "HOST_UDP_PORT": str(self.listeners.udp_port), "HOST_ABSTRACT": self.listeners.abstract_name,
                "HOST_PID": str(os.getpid()), "TOKEN": self.token,
                "INTERPRETER_PREFIXES": ":".join(sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}))}


@pytest.fixture(scope="module")
def host():
    token = "sbxtok" + secrets.token_hex(8)
    canary_path, canary_text = make_canary("canary-")
    api_key = "leak-canary-" + secrets.token_hex(16)
    saved_key = os.environ.get("E2B_API_KEY")
    os.environ["E2B_API_KEY"] = api_key
    listeners = Listeners.open("sbx-abstract-")
    state = Host(token, canary_path, canary_text, api_key, listeners,
                 Path("/proc/self/mountinfo").read_text(), _cgroup_dirs(), _tmp_entries())
    yield state
    listeners.close()
    os.unlink(canary_path)
    if saved_key is None:
        os.environ.pop("E2B_API_KEY", None)
    else:
        os.environ["E2B_API_KEY"] = saved_key


# Every case runs in both modes: forked from a warm-pool zygote, and in a cold sandbox. Isolation from
# the pool must equal the cold path's. A compiled language has no warm mode (its compile and its run are cold
# sandboxes whatever the pool says), so its cases run once.
MODES = ["warm", "cold"]


def modes_of(case: Case) -> list[str]:
    return ["cold"] if case.language in COMPILED else MODES


def source_of(case: Case, host: Host) -> str:
    return case.code.replace("{{CANARY_PATH}}", host.canary_path).replace("{{REPO_ROOT}}", str(REPO_ROOT))


def run_case(case: Case, host: Host, mode: str = "cold") -> dict:
    limits = dict(DEFAULT_LIMITS)
    limits.update(case.limits)
    env = host.env()
    env.update(case.env)
    extra = {"compile_limits": case.compile_limits} if case.compile_limits else {}
    return e2beval.execute(source_of(case, host), case.language, limits=limits, env=env, pool=(mode == "warm"), **extra)


def ran_cold_when_asked_warm(case: Case, result: dict, mode: str) -> bool:
    # Only Python executions come from the pool; the others run cold in both modes.
    return (mode == "warm" and case.language == "python" and not result.get("warm")
            and result.get("outcome") != "sandbox_error")


# The corpus runs CONCURRENT_CASES executions at a time, all of it before the first case's test looks at its
# result: most cases wait (on a timeout, a sleeping daemon, a limit being reached), so one at a time left the
# machine idle for a minute; and hostile programs beside each other are what a judge running --jobs sees, each
# sandbox held to its own limits. Each case's own test still reports its verdict.
CONCURRENT_CASES = 4


@pytest.fixture(scope="module")
def corpus_results(host: Host) -> dict[tuple[str, str], Future]:
    with ThreadPoolExecutor(max_workers=CONCURRENT_CASES) as executor:
        return {(case.path.name, mode): executor.submit(run_case, case, host, mode)
                for case in CASES for mode in modes_of(case)}


def describe(case: Case, result: dict) -> str:
    def excerpt(text: str, limit: int = 1500) -> str:
        return text if len(text) <= limit else text[:limit // 2] + "\n[...]\n" + text[-limit // 2:]

    compiled = result.get("compile") or {}
    compile_part = (f"\n  compile: {compiled.get('outcome')} (exit {compiled.get('exit_code')}, wall "
                    f"{compiled.get('wall_time_s')})\n  compiler stderr:\n{excerpt(compiled.get('stderr', ''))}"
                    if compiled else "")
    return (f"\n  case: {case.path.name}\n  why: {case.why}\n  expected outcome: {'|'.join(sorted(case.outcomes))}\n"
            f"  got outcome: {result.get('outcome')} (exit {result.get('exit_code')}, signal {result.get('signal')}, "
            f"wall {result.get('wall_time_s')}, cpu {result.get('cpu_time_s')})\n  detail: {result.get('detail')}\n"
            f"  stdout:\n{excerpt(result.get('stdout', ''))}\n  stderr:\n{excerpt(result.get('stderr', ''))}"
            + compile_part)


def outputs_of(result: dict) -> dict[str, str]:
    """Every text the execution brought back: the program's and, for a compiled language, the compiler's."""
    compiled = result.get("compile") or {}
    return {"stdout": result.get("stdout", ""), "stderr": result.get("stderr", ""),
            "compiler stdout": compiled.get("stdout", ""), "compiler stderr": compiled.get("stderr", "")}


@pytest.mark.parametrize("case, mode", [pytest.param(case, mode, id=f"{case.path.name}-{mode}")
                                        for case in CASES for mode in modes_of(case)])
def test_case(case: Case, mode: str, host: Host, corpus_results: dict[tuple[str, str], Future]):
    result = corpus_results[(case.path.name, mode)].result()  # an execution that raised raises here
    if ran_cold_when_asked_warm(case, result, mode):
        host.failures.append(case.path.name)
        pytest.fail(f"{case.path.name}: asked for a warm execution but it ran cold", pytrace=False)
    problems = []
    if result["outcome"] not in case.outcomes:
        problems.append(f"outcome {result['outcome']!r} not in {sorted(case.outcomes)}")
    stdout = result.get("stdout", "")
    for pattern in case.expect_stdout:
        if not re.search(pattern, stdout, re.M):
            problems.append(f"stdout does not match {pattern!r}")
    for pattern in case.forbid_stdout:
        match = re.search(pattern, stdout, re.M)
        if match:
            line = stdout[stdout.rfind("\n", 0, match.start()) + 1:].split("\n", 1)[0]
            problems.append(f"stdout matches forbidden {pattern!r}: {line[:200]!r}")
    outputs = outputs_of(result)
    for pattern in case.forbid_output:
        for name, text in outputs.items():
            if re.search(pattern, text, re.M):
                problems.append(f"{name} matches forbidden {pattern!r}")
    secrets_ = [(host.api_key, "the E2B_API_KEY canary"), (host.canary_text, "the host /tmp canary")]
    secrets_ += [(line, "a line of the host's /etc/shadow") for line in host.shadow_lines]
    for secret, what in secrets_:
        for name, text in outputs.items():
            if secret in text:
                problems.append(f"{name} contains {what}")
    cap = case.compile_limits.get("output_bytes", COMPILE_OUTPUT_DEFAULT_BYTES) + COMPILE_OUTPUT_SLACK_BYTES
    for name in ("compiler stdout", "compiler stderr"):
        if len(outputs[name].encode()) > cap:
            problems.append(f"{name} holds {len(outputs[name].encode())} bytes, over the compile stage's cap")
    if problems:
        host.failures.append(case.path.name)
        pytest.fail("; ".join(problems) + describe(case, result), pytrace=False)


# A few cases that exercise kill paths (timeouts, output caps, daemons, fork bombs) are run again inside
# one test so the fd count of this process can be compared exactly before and after: one at a time, as the pool
# grows (a zygote and its two cgroups' files) when executions overlap.
FD_CHECK_CASES = ["043_stdout_flood.py", "046_infinite_loop.py", "051_close_stdout_then_spin.py",
                  "052_daemon_double_fork.py", "053_daemon_keeps_stdout.py", "036_fork_bomb.py", "000_sanity_workspace.py",
                  "115_js_event_loop_spin.js", "116_js_detached_daemon.js", "118_bash_fork_bomb.sh",
                  "137_c_double_fork_daemon.c", "138_cpp_stdout_flood.cpp", "124_cpp_include_dev_zero.cpp"]


def _parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _cgroup_files_open() -> list:
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # closed while we looked
        if target.endswith("/cgroup.procs"):
            found.append(target)
    return found


def _fd_count() -> int:
    """The fd count once the warm pool's background work is done: a zygote's next process is moved into its
    cgroup on a thread of its own, which holds a cgroup.procs file open for a moment after an execution
    ends. A leak stays; that file goes: counted once no cgroup.procs file is open."""
    until(lambda: not _cgroup_files_open(), "the warm pool closing the cgroup.procs file it moves a process with",
          detail=_cgroup_files_open)
    return len(os.listdir("/proc/self/fd"))


def test_zz_host_unchanged(host: Host):
    """Runs last (pytest keeps definition order): the host must look as it did before the corpus."""
    problems = []
    by_name = {c.path.name: c for c in CASES}
    e2beval.warm_up(1)  # the zygote's own fds (control socket, pidfd) are there before and after
    before = _fd_count()
    for mode in MODES:
        for name in FD_CHECK_CASES:
            if name in by_name and mode in modes_of(by_name[name]):
                run_case(by_name[name], host, mode)
    after = _fd_count()
    if after != before:
        problems.append(f"fd count of the test process changed from {before} to {after}: "
                        f"{sorted(os.listdir('/proc/self/fd'))}")

    try:
        until(lambda: not processes_with([host.token]), "the end of every sandbox process on the host")
    except WaitTimeout:
        problems.append(f"sandbox processes survived on the host: {processes_with([host.token])}")

    if Path("/proc/self/mountinfo").read_text() != host.mountinfo:
        problems.append("the test process's /proc/self/mountinfo changed")

    # The resident compile services of Java and TypeScript (docs/sandbox.md, "Resident compilers") live on after
    # their compiles, a cgroup each: ended here, so that what they leave behind (nothing) is checked too.
    e2beval.end_resident_compilers()
    if e2beval.resident_compilers():
        problems.append(f"resident compile services survived end_resident_compilers(): {e2beval.resident_compilers()}")
    # Other e2beval users on this host (e.g. a soak test) create e2beval-<their pid>-<n> cgroups concurrently:
    # only this process's own, and unattributable ones, count.
    new_cgroups = {d for d in _cgroup_dirs() - host.cgroups
                   if not re.match(r"e2beval-\d+-", os.path.basename(d)) or os.path.basename(d).startswith(f"e2beval-{os.getpid()}-")}
    # A live warm-pool zygote keeps two cgroups that its executions reuse (docs/sandbox.md, Warm pool): those
    # stay, exactly two per zygote in each hierarchy, holding nothing but a zygote's prepared process.
    zygotes = {zygote["pid"] for zygote in e2beval.pool_info()}
    by_parent: dict[str, list[str]] = {}
    for directory in new_cgroups:
        by_parent.setdefault(os.path.dirname(directory), []).append(directory)
    for parent, directories in by_parent.items():
        held = [int(pid) for d in directories for pid in Path(d, "cgroup.procs").read_text().split()]
        if len(directories) != 2 * len(zygotes) or any(_parent_of(pid) not in zygotes for pid in held):
            problems.append(f"cgroups left behind in {parent}: {sorted(directories)} "
                            f"({len(zygotes)} live zygotes; processes in them: {held})")

    new_tmp = _tmp_entries() - host.tmp_entries
    if new_tmp:
        problems.append(f"e2beval* entries left in host /tmp: {sorted(new_tmp)}")

    written = paths_with_token(host.token)
    if written:
        problems.append(f"files written outside the workspace: {written}")

    problems += [f"{heard} from inside a sandbox" for heard in host.listeners.heard()]

    if os.environ.get("E2B_API_KEY") != host.api_key:
        problems.append("E2B_API_KEY of the test process changed")

    assert not problems, "host changed by the corpus:\n  " + "\n  ".join(problems) + (
        f"\n  (cases that failed: {host.failures})" if host.failures else "")

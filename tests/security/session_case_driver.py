"""Runs one case of the session corpus (tests/security/sessions/) in a process of its own.

test_session_corpus.py starts this file once per case, with a hard timeout, so a case that hangs a session
call fails instead of blocking the suite, and whatever the case leaves behind dies with this process.
The driver creates the case's sandboxes, hands them with a ``HostView`` to the case's ``attack``, then kills
them and checks the host side: no process left in any session's pid namespace or holding the token, the
sessions' cgroup directories gone, no file holding the token in the host's usual places. It prints one JSON
line, ``{"ok": bool, "problems": [...]}``, as its last line of stdout.

Usage: session_case_driver.py CASE_FILE HOST_JSON   (HOST_JSON: what HostView needs, from the runner)
"""
from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import sys
import sysconfig
import traceback
from dataclasses import dataclass
from pathlib import Path

from e2beval import Sandbox
from host_evidence import paths_with, processes_with

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: run as a process of its own
from support.waiting import WaitTimeout, until  # noqa: E402


def parse_headers(path: Path) -> dict[str, str]:
    """The case's header: the leading `# name: value` lines (a name given twice keeps the last value)."""
    headers: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        name, sep, value = line[1:].strip().partition(":")
        if sep and name.replace("-", "").isalpha():
            headers[name.strip()] = value.strip()
    return headers


NS_GET_PARENT = 0xB702  # ioctl on a namespace fd: the fd of its parent namespace (linux/nsfs.h)


def _inside(pid_namespace_fd: int, target_inode: int) -> bool:
    """True when the namespace is the target or nested in it: every kernel and command of a session is pid 1 of
    its own pid namespace below the session's (docs/sessions.md, trust boundary)."""
    fd = pid_namespace_fd
    try:
        for _ in range(32):  # the kernel nests pid namespaces 32 deep at most
            if os.fstat(fd).st_ino == target_inode:
                return True
            try:
                parent = fcntl.ioctl(fd, NS_GET_PARENT)
            except OSError:
                return False  # the top, or a parent we may not see
            if fd != pid_namespace_fd:
                os.close(fd)
            fd = parent
        return False
    finally:
        if fd != pid_namespace_fd:
            os.close(fd)


def pid_namespace_members(namespace: str) -> list[int]:
    """Host pids in the pid namespace ``namespace`` (what os.readlink gives for /proc/PID/ns/pid) or in one nested
    in it."""
    target = int(namespace[namespace.index("[") + 1:-1])
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fd = os.open(f"/proc/{name}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue  # it ended while we looked
            try:
                if _inside(fd, target):
                    found.append(int(name))
            finally:
                os.close(fd)
    return found


def host_paths_with(token: str) -> list[str]:
    """Places an escaping write would land in, checked for any name holding the token."""
    dirs = {"/", "/usr", "/usr/bin", "/usr/lib", "/bin", "/lib", "/etc", "/dev", "/dev/shm", "/tmp", "/root",
            "/home", "/var/tmp", "/work", sys.prefix, sys.base_prefix, sysconfig.get_paths()["purelib"],
            os.path.dirname(os.__file__), str(Path(__file__).parent)}
    return paths_with(token, dirs)


def sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def wait_until(predicate, seconds: float) -> bool:
    """Whether `predicate` came true within `seconds` (the cases assert on it with their own message)."""
    try:
        until(predicate, "the case's condition", timeout=seconds)
        return True
    except WaitTimeout:
        return False


@dataclass
class SessionTrace:
    """Host-side evidence of one session, taken while it runs: its pid namespace and cgroup directories."""
    sandbox_id: str
    init_pid: int
    pid_namespace: str
    cgroup_dirs: list[str]


class HostView:
    """What a case may use on the host side: the runner's canaries and listeners, and evidence helpers."""

    def __init__(self, values: dict):
        self.token: str = values["token"]
        self.canary_path: str = values["canary_path"]
        self.canary_text: str = values["canary_text"]
        self.env_canary_name: str = values["env_canary_name"]
        self.env_canary_value: str = values["env_canary_value"]
        self.tcp_port: int = values["tcp_port"]
        self.udp_port: int = values["udp_port"]
        self.abstract_name: str = values["abstract_name"]
        self.runner_pid: int = values["runner_pid"]
        self.secrets = [self.canary_text, self.env_canary_value, values["api_key"]]
        self.traces: dict[str, SessionTrace] = {}

    # -- sessions --

    def trace(self, sandbox: Sandbox) -> SessionTrace:
        """Records (once) the session's pid namespace and cgroups, so they can be checked after it ends."""
        if sandbox.sandbox_id not in self.traces:
            init = json.loads(sandbox._session.info())["host_pid"]
            dirs = []
            for line in Path(f"/proc/{init}/cgroup").read_text().splitlines():
                _, controllers, relative = line.split(":", 2)
                base = Path("/sys/fs/cgroup")
                if controllers:  # cgroup v1: one hierarchy per controller set
                    base = base / controllers.split(",")[0].replace("name=", "")
                directory = base / relative.lstrip("/")
                if "e2beval" in str(relative) and directory.is_dir():
                    dirs.append(str(directory))
            self.traces[sandbox.sandbox_id] = SessionTrace(sandbox.sandbox_id, init, os.readlink(f"/proc/{init}/ns/pid"),
                                                           dirs)
        return self.traces[sandbox.sandbox_id]

    def session_pids(self, sandbox: Sandbox) -> list[int]:
        """Host pids of every process of the session (its whole pid namespace)."""
        return pid_namespace_members(self.trace(sandbox).pid_namespace)

    def cgroup_file(self, sandbox: Sandbox, *names: str) -> str | None:
        """The first of ``names`` found among the session's cgroup control files, or None. Give the v2 and the
        v1 name: ("memory.max", "memory.limit_in_bytes"), ("memory.peak", "memory.max_usage_in_bytes")."""
        for name in names:
            for directory in self.trace(sandbox).cgroup_dirs:
                path = Path(directory) / name
                if path.exists():
                    return path.read_text().strip()
        return None

    def wait_session_gone(self, sandbox: Sandbox, seconds: float = 5) -> list[int]:
        """Waits until no process of the session is left on the host; returns the ones still there."""
        namespace = self.trace(sandbox).pid_namespace
        # Processes of namespaces nested in the session's (each kernel and command has its own) are not its
        # members by /proc/PID/ns/pid, so the ones that carry this case's token are waited for too: SIGKILL
        # and the kernel's teardown of nested namespaces take a moment on a loaded machine. A process still
        # there after `seconds` is a survivor, and the cases' own checks fail on it.
        wait_until(lambda: not pid_namespace_members(namespace) and not self.processes_with_token(), seconds)
        return pid_namespace_members(namespace)

    # -- evidence --

    def processes_with_token(self) -> list[str]:
        return processes_with([self.token])

    def paths_with_token(self) -> list[str]:
        return host_paths_with(self.token)

    def leaked(self, *texts: object) -> list[str]:
        """The runner's secrets (host /tmp canary, host env canaries) found in any of ``texts``."""
        blob = "\n".join(str(t) for t in texts)
        return [secret for secret in self.secrets if secret in blob]

    sha256 = staticmethod(sha256)
    wait_until = staticmethod(wait_until)


def load_attack(path: Path):
    spec = importlib.util.spec_from_file_location(f"session_case_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.attack


def run(path: Path, host: HostView) -> list[str]:
    headers = parse_headers(path)
    count = int(headers.get("sessions", "1"))
    options = {"timeout": 60}
    if os.environ.get("E2BEVAL_SESSION_CORPUS_TEMPLATE"):  # the corpus in a template (README: IPython kernels)
        options["template"] = os.environ["E2BEVAL_SESSION_CORPUS_TEMPLATE"]
    options.update(json.loads(headers.get("create", "{}")))
    attack = load_attack(path)
    problems: list[str] = []
    before_paths = set(host.paths_with_token())
    sandboxes = []
    try:
        for _ in range(count):
            sandbox = Sandbox.create(**options)
            sandboxes.append(sandbox)
            host.trace(sandbox)
        attack(*sandboxes, host)
    except AssertionError as failure:
        problems.append(f"containment assertion failed: {failure}\n{traceback.format_exc(limit=-3)}")
    except Exception as failure:  # an attack must complete: an unexpected error is a failure, not a pass
        problems.append(f"unexpected {type(failure).__name__}: {failure}\n{traceback.format_exc(limit=-3)}")
    finally:
        for sandbox in sandboxes:
            sandbox.kill()

    # Whatever the case did, after kill() nothing of any session may remain on the host.
    for trace in host.traces.values():
        if not wait_until(lambda: not pid_namespace_members(trace.pid_namespace), 5):
            problems.append(f"processes of {trace.sandbox_id} survived kill(): {pid_namespace_members(trace.pid_namespace)}")
        if not wait_until(lambda: not any(os.path.exists(d) for d in trace.cgroup_dirs), 5):
            problems.append(f"cgroups of {trace.sandbox_id} left after kill(): {[d for d in trace.cgroup_dirs if os.path.exists(d)]}")
    if not wait_until(lambda: not host.processes_with_token(), 3):
        problems.append(f"host processes hold the case's token: {host.processes_with_token()}")
    written = set(host.paths_with_token()) - before_paths
    if written:
        problems.append(f"files written outside the sandbox: {sorted(written)}")
    if Path(host.canary_path).read_text() != host.canary_text:
        problems.append("the host /tmp canary file was changed")
    return problems


def main() -> int:
    path = Path(sys.argv[1])
    host = HostView(json.loads(sys.argv[2]))
    try:
        problems = run(path, host)
    except Exception as failure:
        problems = [f"driver error: {type(failure).__name__}: {failure}\n{traceback.format_exc()}"]
    sys.stdout.flush()
    print("\n" + json.dumps({"ok": not problems, "problems": problems}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The developers' session corpus: whole `e2beval.Sandbox` sessions attacked through the SDK's API.

Every file in ``sessions/`` defines ``attack(sandbox, host)`` (or ``attack(first, second, host)``) that
performs one attack through run_code, commands and files and asserts containment on the host side (see
README.md, "Sessions"). Each case runs in its own process (session_case_driver.py) under a hard timeout, so
a hang fails the case instead of blocking the suite. Cases with a ``# known-hole:`` header record a gap in
today's code: they are expected to fail (strict xfail, so a fixed hole shows up as XPASS and fails too).
"""
from __future__ import annotations

import json
import os
import secrets
import select
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SESSIONS_DIR = HERE / "sessions"
DRIVER = HERE / "session_case_driver.py"
DEFAULT_HARD_TIMEOUT_S = 30
KNOWN_HEADERS = {"why", "sessions", "create", "timeout", "known-hole"}


@dataclass
class SessionCase:
    path: Path
    why: str
    hard_timeout_s: float
    known_hole: str | None


def parse_case(path: Path) -> SessionCase:
    headers: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        name, sep, value = line[1:].strip().partition(":")
        if sep and name.replace("-", "").isalpha():
            if name not in KNOWN_HEADERS:
                raise ValueError(f"{path.name}: unknown header '# {name}:' (known: {sorted(KNOWN_HEADERS)})")
            headers[name] = value.strip()
    if not headers.get("why"):
        raise ValueError(f"{path.name}: missing '# why:' header")
    if "create" in headers:
        json.loads(headers["create"])
    if "def attack(" not in path.read_text():
        raise ValueError(f"{path.name}: defines no attack() function")
    return SessionCase(path, headers["why"], float(headers.get("timeout", DEFAULT_HARD_TIMEOUT_S)),
                       headers.get("known-hole"))


CASES = [parse_case(p) for p in sorted(SESSIONS_DIR.glob("[0-9][0-9][0-9]_*.py"))]


@dataclass
class Listeners:
    """The host's bait: a TCP and a UDP socket on 127.0.0.1 and an abstract unix socket; none may hear anything."""
    tcp: socket.socket
    udp: socket.socket
    abstract: socket.socket
    abstract_name: str

    def heard(self) -> list[str]:
        found = []
        readable, _, _ = select.select([self.tcp, self.abstract], [], [], 0)
        for sock, what in ((self.tcp, "TCP"), (self.abstract, "abstract unix")):
            if sock in readable:
                connection, _ = sock.accept()
                connection.close()
                found.append(f"the host {what} listener got a connection")
        try:
            data = self.udp.recv(4096)
            found.append(f"the host UDP listener received {data[:60]!r}")
        except BlockingIOError:
            pass
        return found


@pytest.fixture(scope="module")
def host_values():
    token = "sestok" + secrets.token_hex(8)
    canary_text = "session-canary-" + secrets.token_hex(16)
    fd, canary_path = tempfile.mkstemp(prefix="sbx-session-canary-", dir="/tmp")
    os.write(fd, canary_text.encode())
    os.close(fd)
    os.chmod(canary_path, 0o644)  # readable by anyone on the host: only the session's view protects it
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(16)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    abstract_name = "sbx-session-abstract-" + secrets.token_hex(8)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + abstract_name)
    abstract.listen(16)
    values = {"token": token, "canary_path": canary_path, "canary_text": canary_text,
              # Secrets in the environment the sessions' owner runs with: none may reach a session.
              "env_canary_name": "E2BEVAL_HOST_SECRET", "env_canary_value": "host-env-" + secrets.token_hex(16),
              "api_key": "leak-canary-" + secrets.token_hex(16),
              "tcp_port": tcp.getsockname()[1], "udp_port": udp.getsockname()[1], "abstract_name": abstract_name,
              "runner_pid": os.getpid()}
    yield values, Listeners(tcp, udp, abstract, abstract_name)
    for sock in (tcp, udp, abstract):
        sock.close()
    os.unlink(canary_path)


def run_driver(case: SessionCase, values: dict) -> tuple[dict | None, str]:
    """Runs the case's process; returns its verdict (None when it hung or died) and its output for the report."""
    env = dict(os.environ)
    env[values["env_canary_name"]] = values["env_canary_value"]
    env["E2B_API_KEY"] = values["api_key"]
    process = subprocess.Popen([sys.executable, str(DRIVER), str(case.path), json.dumps(values)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=case.hard_timeout_s)
    except subprocess.TimeoutExpired:
        # Its sessions die with it (their init processes have PR_SET_PDEATHSIG); the group takes its helpers.
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return None, f"HUNG: no verdict within the hard timeout of {case.hard_timeout_s:g} s\n{output[-3000:]}"
    lines = output.rstrip().splitlines()
    try:
        return json.loads(lines[-1]), output
    except (IndexError, json.JSONDecodeError):
        return None, f"the driver died (exit {process.returncode}) without a verdict\n{output[-3000:]}"


def _params():
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=case.known_hole)] if case.known_hole else []
        yield pytest.param(case, id=case.path.stem, marks=marks)


@pytest.mark.parametrize("case", list(_params()))
def test_session_case(case: SessionCase, host_values):
    values, listeners = host_values
    verdict, output = run_driver(case, values)
    problems = [] if verdict is None else list(verdict["problems"])
    if verdict is None:
        problems.append(output)
    problems += listeners.heard()
    leaked = [name for name, secret in (("host /tmp canary", values["canary_text"]),
                                        ("host env canary", values["env_canary_value"]),
                                        ("E2B_API_KEY canary", values["api_key"])) if secret in output]
    problems += [f"the case's output holds the {name}" for name in leaked]
    if problems:
        pytest.fail(f"{case.path.name} (why: {case.why}):\n  " + "\n  ".join(problems), pytrace=False)

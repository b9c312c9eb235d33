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
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from host_evidence import Listeners, make_canary
from session_case_driver import parse_headers

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
    headers = parse_headers(path)
    unknown = sorted(set(headers) - KNOWN_HEADERS)
    if unknown:
        raise ValueError(f"{path.name}: unknown header '# {unknown[0]}:' (known: {sorted(KNOWN_HEADERS)})")
    if not headers.get("why"):
        raise ValueError(f"{path.name}: missing '# why:' header")
    if "create" in headers:
        json.loads(headers["create"])
    if "def attack(" not in path.read_text():
        raise ValueError(f"{path.name}: defines no attack() function")
    return SessionCase(path, headers["why"], float(headers.get("timeout", DEFAULT_HARD_TIMEOUT_S)),
                       headers.get("known-hole"))


CASES = [parse_case(p) for p in sorted(SESSIONS_DIR.glob("[0-9][0-9][0-9]_*.py"))]


@pytest.fixture(scope="module")
def host_values():
    token = "sestok" + secrets.token_hex(8)
    canary_path, canary_text = make_canary("session-canary-")
    listeners = Listeners.open("sbx-session-abstract-")
    values = {"token": token, "canary_path": canary_path, "canary_text": canary_text,
              # Secrets in the environment the sessions' owner runs with: none may reach a session.
              "env_canary_name": "E2BEVAL_HOST_SECRET", "env_canary_value": "host-env-" + secrets.token_hex(16),
              "api_key": "leak-canary-" + secrets.token_hex(16),
              "tcp_port": listeners.tcp_port, "udp_port": listeners.udp_port, "abstract_name": listeners.abstract_name,
              "runner_pid": os.getpid()}
    yield values, listeners
    listeners.close()
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

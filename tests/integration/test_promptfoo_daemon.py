"""The e2beval daemon that grades promptfoo's assertion calls (python/e2beval/daemon.py, daemon_client.py):
the same GradingResults as in-process grading under the real `promptfoo eval`, one daemon for concurrent first
calls, a stale socket replaced, another uid refused, an idle daemon ending, a daemon killed mid-call giving a
failed result instead of a hang, and a socket the code under test cannot see.

Every test uses its own $XDG_RUNTIME_DIR, so its daemons are its own; they are ended (by pid) afterwards.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest
from _support import REPO, require_importable_e2beval, run_promptfoo
from support.processes import descendants, gone
from support.waiting import until

ANSWER = "Here it is:\n\n```python\ndef add_one(x):\n    return x + 1\n```\n"
VARS = {"function_name": "add_one", "test_input": "41", "expected_output": "42"}

# A promptfoo assertion process: a new Python that has imported what promptfoo's wrapper imports, grades one
# call and prints the GradingResult (and whether the compiled core was loaded) as JSON.
ASSERTION_PROCESS = """
import asyncio, importlib.util, inspect, json, os, sys
from e2beval.promptfoo import get_assert
output, context = json.loads(sys.stdin.read())
result = get_assert(output, context)
print(json.dumps({"result": result, "core_loaded": "e2beval._core" in sys.modules}))
"""

# Fields that measure time or memory: they differ between any two runs, daemon or not.
MEASURED = {"total_s", "wall_time_s", "cpu_time_s", "peak_memory_bytes", "runtime_s"}


@pytest.fixture
def runtime():
    """A private $XDG_RUNTIME_DIR; every daemon that served from it is ended afterwards. A short path directly
    under the temp directory, not in tmp_path: a socket's path must fit AF_UNIX's 108 bytes, and pytest-xdist's
    tmp_path (/tmp/pytest-of-root/pytest-N/popen-gw0/test_name0/) leaves too little for the daemon's socket."""
    directory = Path(tempfile.mkdtemp(prefix="xdg-run-"))  # mode 0700
    yield directory
    for pid in daemon_pids(directory):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    until(lambda: not daemon_pids(directory), "the daemons' exit")
    shutil.rmtree(directory, ignore_errors=True)


def daemon_env(runtime: Path, **overrides: Optional[str]) -> Dict[str, str]:
    env = dict(os.environ)
    env.pop("E2BEVAL_DAEMON", None)
    env.update(XDG_RUNTIME_DIR=str(runtime), PYTHONDONTWRITEBYTECODE="1")
    env.update(overrides)
    return {name: value for name, value in env.items() if value is not None}


def assertion_process(env: Dict[str, str], cwd: Path, output: str = ANSWER, vars_: Optional[dict] = None,
                      config: Optional[dict] = None, timeout_s: int = 120) -> subprocess.Popen:
    context = {"vars": vars_ or VARS, "config": {"metrics": False, **(config or {})}, "test": {"description": "t"},
               "provider": {"id": "echo", "label": "recorded"}}
    process = subprocess.Popen([sys.executable, "-c", ASSERTION_PROCESS], cwd=cwd, env=env, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdin.write(json.dumps([output, context]))
    process.stdin.close()
    return process


def finished(process: subprocess.Popen, timeout_s: int = 120) -> dict:
    stdout = process.stdout.read()
    stderr = process.stderr.read()
    process.wait(timeout=timeout_s)
    assert process.returncode == 0, f"the assertion process failed ({process.returncode}):\n{stdout}\n{stderr}"
    answer = json.loads(stdout.strip().splitlines()[-1])
    answer["stderr"] = stderr
    return answer


def grade(env: Dict[str, str], cwd: Path, **kwargs) -> dict:
    return finished(assertion_process(env, cwd, **kwargs))


def socket_path(env: Dict[str, str], cwd: Path) -> Path:
    """Where the daemon for this environment listens (the key depends on the environment)."""
    probe = subprocess.run([sys.executable, "-c", "from e2beval import daemon_client; print(daemon_client.socket_path())"],
                           cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=True)
    return Path(probe.stdout.strip())


def daemon_pids(runtime: Path) -> List[int]:
    """Live daemons serving a socket under ``runtime`` (from /proc: their command line names the socket)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"e2beval.daemon import main" in argument for argument in arguments) and \
                any(argument.startswith(str(runtime).encode()) for argument in arguments):
            if not gone(int(entry.name)):
                pids.append(int(entry.name))
    return pids


# nanosleep's and clock_nanosleep's numbers (Python's time.sleep uses the latter), per architecture.
SLEEP_SYSCALLS = {"x86_64": ("35", "230"), "aarch64": ("101", "115")}[platform.machine()]


def in_sleep(pid: int) -> bool:
    """Whether the process is sleeping in nanosleep or clock_nanosleep: the first field of /proc/PID/syscall."""
    try:
        return Path(f"/proc/{pid}/syscall").read_text().split()[0] in SLEEP_SYSCALLS
    except (OSError, IndexError):
        return False


def served(runtime: Path) -> List[str]:
    """The daemons' "serving" log lines under ``runtime``: one per daemon that started."""
    return [line for log in (runtime / "e2beval").glob("*.log") for line in log.read_text().splitlines()
            if " serving " in line]


def _comparable(value):
    """A result with its measurements taken out (MEASURED), for comparing two gradings of the same answers."""
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items() if key not in MEASURED}
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


# ------------------------------------------------------------------------------------------ the tests


def test_the_fast_path_loads_no_compiled_core(runtime, tmp_path):
    """The whole point: a promptfoo assertion process graded by the daemon never loads e2beval._core."""
    answer = grade(daemon_env(runtime), tmp_path)
    assert answer["result"]["pass"] is True, answer
    assert answer["core_loaded"] is False, answer
    assert len(served(runtime)) == 1


@pytest.mark.parametrize("example", ["tutorial", "seed2", "stdin"])
def test_promptfoo_eval_gives_the_same_results_with_and_without_the_daemon(example, runtime, tmp_path):
    """The real `promptfoo eval` of the examples (between them every test shape: correct, wrong, unsafe,
    erroring, code-less and endless answers, stdin programs, comparison modes), once graded in each assertion's
    process (E2BEVAL_DAEMON=0), once by the daemon: the same GradingResults, measurements aside, and the same
    metrics records."""
    require_importable_e2beval()
    config = REPO / "examples" / example / "promptfooconfig.yaml"
    (tmp_path / "off").mkdir()
    (tmp_path / "on").mkdir()
    without = run_promptfoo(config, tmp_path / "off", E2BEVAL_DAEMON="0", XDG_RUNTIME_DIR=str(runtime))
    assert not (runtime / "e2beval").exists(), "E2BEVAL_DAEMON=0 must not start (or even look for) a daemon"
    with_daemon = run_promptfoo(config, tmp_path / "on", XDG_RUNTIME_DIR=str(runtime))
    assert len(served(runtime)) == 1, "the daemon did not grade the second run"

    def results(run):
        return {(row["testCase"].get("description"), row["provider"].get("label")):
                _comparable(row["gradingResult"]["componentResults"]) for row in run.rows}

    assert len(with_daemon.rows) == len(without.rows) >= 5
    assert results(with_daemon) == results(without)
    assert with_daemon.stats["successes"] == without.stats["successes"]
    assert with_daemon.stats["failures"] == without.stats["failures"]

    def records(run):
        found = [json.loads(path.read_text()) for path in run.metrics_dir.glob("metrics_*.json")]
        return sorted((r["task_id"], r["provider"], r["model"], r["success"], _comparable(r["extra"])["reason"])
                      for r in found), {r["run_id"] for r in found}

    (on_records, on_runs), (off_records, off_runs) = records(with_daemon), records(without)
    assert on_records == off_records
    # One run id per eval, from promptfoo's process, as in-process grading names it.
    assert len(on_runs) == 1 and next(iter(on_runs)).startswith("promptfoo-"), on_runs
    assert len(off_runs) == 1 and next(iter(off_runs)).startswith("promptfoo-"), off_runs


def test_daemon_off_grades_in_the_assertions_own_process(runtime, tmp_path):
    answer = grade(daemon_env(runtime, E2BEVAL_DAEMON="0"), tmp_path)
    assert answer["result"]["pass"] is True
    assert answer["core_loaded"] is True
    assert not (runtime / "e2beval").exists()


def test_concurrent_first_calls_start_one_daemon(runtime, tmp_path):
    env = daemon_env(runtime)
    processes = [assertion_process(env, tmp_path) for _ in range(6)]
    answers = [finished(process) for process in processes]
    assert all(answer["result"]["pass"] for answer in answers), answers
    assert not any(answer["core_loaded"] for answer in answers), "some assertion graded in its own process"
    assert len(served(runtime)) == 1, served(runtime)
    assert len(daemon_pids(runtime)) == 1


def test_a_stale_socket_is_replaced(runtime, tmp_path):
    import socket

    env = daemon_env(runtime)
    path = socket_path(env, tmp_path)
    # What a dead daemon leaves: a socket file nobody listens on.
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()
    assert path.exists()
    answer = grade(env, tmp_path)
    assert answer["result"]["pass"] is True and answer["core_loaded"] is False, answer
    first = daemon_pids(runtime)
    assert len(first) == 1

    # And the socket of a daemon killed outright.
    os.kill(first[0], signal.SIGKILL)
    until(lambda: not daemon_pids(runtime), "the killed daemon's exit")
    assert path.exists()
    answer = grade(env, tmp_path)
    assert answer["result"]["pass"] is True and answer["core_loaded"] is False, answer
    second = daemon_pids(runtime)
    assert len(second) == 1 and second != first
    assert len(served(runtime)) == 2


def test_an_idle_daemon_ends_and_removes_its_files(runtime, tmp_path):
    """Issue 38, row 12: a daemon that ends leaves nothing in its directory: socket, .lock, .start and .log go
    (the log stays only when it holds more than the start and the end)."""
    env = daemon_env(runtime, E2BEVAL_DAEMON_IDLE_S="1")
    path = socket_path(env, tmp_path)
    assert grade(env, tmp_path)["result"]["pass"] is True
    pids = daemon_pids(runtime)
    assert len(pids) == 1
    assert sorted(p.suffix for p in (runtime / "e2beval").iterdir()) == [".lock", ".log", ".sock", ".start"]
    until(lambda: not daemon_pids(runtime), "the idle daemon's exit")
    assert not path.exists()
    assert sorted(p.name for p in (runtime / "e2beval").iterdir()) == []
    # SIGTERM ends it the same way, after its calls.
    assert grade(daemon_env(runtime), tmp_path)["result"]["pass"] is True
    (pid,) = daemon_pids(runtime)
    os.kill(pid, signal.SIGTERM)
    until(lambda: not daemon_pids(runtime), "the terminated daemon's exit")
    assert sorted(p.name for p in (runtime / "e2beval").iterdir()) == []


def test_files_left_by_daemons_that_are_gone_are_swept(runtime, tmp_path):
    """What killed or crashed daemons left (and older versions, which never cleaned up) goes when a daemon starts:
    a gone key's socket, .lock and .start at once, its log after a day; a live daemon's files are never touched."""
    import socket as sockets

    directory = runtime / "e2beval"
    directory.mkdir(mode=0o700)
    # A key whose daemon was SIGKILLed: its socket, lock, start lock and a day-old log.
    dead = directory / "daemon-0123456789abcdef0123"
    stale = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    stale.bind(str(dead) + ".sock")
    stale.close()
    for suffix in (".lock", ".start", ".log"):
        Path(str(dead) + suffix).write_text("")
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(str(dead) + ".log", (two_days_ago, two_days_ago))
    # Another gone key whose log is young (it may say why that daemon failed): the log stays, the rest goes.
    young = directory / "daemon-fedcba9876543210fedc"
    Path(str(young) + ".log").write_text("2026-01-01T00:00:00 e2beval daemon 1: warm-up failed: ...\n")
    Path(str(young) + ".lock").write_text("")
    # A live daemon of a third key: nothing of it may go.
    other_env = daemon_env(runtime, TMPDIR=str(tmp_path))
    assert grade(other_env, tmp_path)["result"]["pass"] is True
    live = {p.name for p in directory.iterdir()} - {p.name for p in directory.iterdir()
                                                     if p.name.startswith((dead.name, young.name))}
    assert len(live) == 4, live

    env = daemon_env(runtime)
    assert grade(env, tmp_path)["result"]["pass"] is True  # starts this key's daemon, which sweeps
    assert len(daemon_pids(runtime)) == 2
    left = {p.name for p in directory.iterdir()}
    assert not any(name.startswith(dead.name) for name in left), left
    assert {name for name in left if name.startswith(young.name)} == {young.name + ".log"}
    assert live <= left


def test_a_daemon_killed_mid_call_gives_a_failed_result_not_a_hang(runtime, tmp_path):
    env = daemon_env(runtime)
    assert grade(env, tmp_path)["result"]["pass"] is True  # the daemon runs, its pool is warm
    (daemon,) = daemon_pids(runtime)
    slow = "```python\nimport time\n\ndef add_one(x):\n    time.sleep(120)\n    return x + 1\n```\n"
    process = assertion_process(env, tmp_path, output=slow, config={"timeout": 300})
    # The call is in progress once its program sleeps in a sandbox under the daemon. (Not "once the daemon has
    # more processes": its pool refilling after the first call also adds some, and under load that came first,
    # so the daemon was killed before the call reached it and the call was served without it.)
    until(lambda: any(in_sleep(pid) for pid in descendants(daemon)), "the slow call's time.sleep in its sandbox")
    os.kill(daemon, signal.SIGKILL)
    answer = finished(process, timeout_s=60)
    result = answer["result"]
    assert result["pass"] is False and result["score"] == 0.0
    assert "e2beval daemon ended before it answered" in result["reason"], result
    assert "E2BEVAL_DAEMON=0" in result["reason"]


def test_the_code_under_test_cannot_see_the_daemons_socket(runtime, tmp_path):
    env = daemon_env(runtime)
    path = socket_path(env, tmp_path)
    probe = (
        "import os, socket\n"
        f"path = {str(path)!r}\n"
        "seen = os.path.exists(os.path.dirname(path)) or os.path.exists(path)\n"
        "try:\n"
        "    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "    connection.connect(path)\n"
        "    reached = True\n"
        "except OSError:\n"
        "    reached = False\n"
        "print('visible' if seen or reached else 'hidden')\n"
    )
    answer = grade(env, tmp_path, output="```python\nx = 1\n```",
                   vars_={"testCode": probe, "expectedOutput": "hidden"}, config={"scan": False})
    assert answer["core_loaded"] is False, "not graded by the daemon"
    assert path.exists(), "the daemon's socket should exist outside the sandbox"
    result = answer["result"]
    assert result["pass"] is True, result["reason"] + "\n" + json.dumps(result.get("metadata"), indent=1)


# A client of another uid, in the system's Python (this venv's interpreter lives under root's 0700 home): it
# connects to the socket given in argv[1], sends one call and prints what happened.
OTHER_UID_CLIENT = """
import json, socket, sys
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.settimeout(60)
try:
    connection.connect(sys.argv[1])
except OSError as error:
    print(json.dumps({"connect": type(error).__name__}))
    sys.exit(0)
request = json.dumps({"output": "x", "context": {}, "started": 0.0, "caller": {}}).encode()
try:
    connection.sendall(len(request).to_bytes(4, "big") + request)
except BrokenPipeError:
    pass  # refused before the request was read: the refusal is still there to read
data = b""
while True:
    chunk = connection.recv(65536)
    if not chunk:
        break
    data += chunk
print(json.dumps({"reply": json.loads(data[4:]) if data else None}))
"""


def test_another_uid_cannot_reach_the_daemon_and_is_refused_by_it():
    """User nobody cannot enter the socket's 0700 directory; and when the directory is opened up (as a mistake
    would), the daemon still refuses nobody's call: it checks the peer's uid (SO_PEERCRED)."""
    if os.getuid() != 0:
        pytest.fail("this test runs a client as user nobody and needs root (the test suite runs as root here)")
    import pwd
    import shutil
    import tempfile

    nobody = pwd.getpwnam("nobody")
    # Under /tmp itself: pytest's own temporary directories are closed to other users.
    top = Path(tempfile.mkdtemp(prefix="e2beval-daemon-uid-"))
    runtime = top / "run"
    runtime.mkdir(mode=0o700)
    try:
        env = daemon_env(runtime)
        answer = grade(env, top)
        assert answer["result"]["pass"] is True and answer["core_loaded"] is False, answer
        (path,) = (runtime / "e2beval").glob("*.sock")

        def as_nobody() -> dict:
            done = subprocess.run(["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups",
                                   "/usr/bin/python3", "-c", OTHER_UID_CLIENT, str(path)],
                                  capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout)

        assert as_nobody() == {"connect": "PermissionError"}
        os.chmod(top, 0o711)
        os.chmod(runtime, 0o711)
        os.chmod(runtime / "e2beval", 0o711)
        os.chmod(path, 0o666)
        reply = as_nobody()["reply"]
        assert reply == {"refused": f"this daemon serves uid 0 only, not uid {nobody.pw_uid}"}, reply
        logs = "".join(log.read_text() for log in (runtime / "e2beval").glob("*.log"))
        assert f"refused a connection from uid {nobody.pw_uid}" in logs
    finally:
        for pid in daemon_pids(runtime):
            os.kill(pid, signal.SIGTERM)
        shutil.rmtree(top, ignore_errors=True)

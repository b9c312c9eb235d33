"""Sessions section of the security tests: what the code a session runs must not be able to do to the HOST.

A session's agent runs inside the sandbox, next to the code it serves, so the host treats everything it
sends as untrusted: every call has a host-side deadline (a stopped agent cannot stall the caller), what a
session sends the host is capped (a flood of rich results cannot starve the host of memory), and a
session's cgroups go away even when its owner does not exit cleanly (docs/sessions.md).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from e2beval.sandbox import Sandbox, SandboxException, TimeoutException
from support.processes import state
from support.waiting import returned, until


def _e2beval_cli() -> str:
    return str(Path(sys.executable).with_name("e2beval"))


def _doctor() -> dict:
    completed = subprocess.run([_e2beval_cli(), "doctor", "--json"], capture_output=True, text=True, timeout=120)
    return json.loads(completed.stdout)


def _cgroups_of(pid: int) -> list[str]:
    """The e2beval cgroup directories a process with this pid created (named e2beval-<pid>-...)."""
    found = []
    for parent in _doctor()["cgroups"]["parents"]:
        for name in os.listdir(parent):
            if name.startswith(f"e2beval-{pid}-"):
                found.append(os.path.join(parent, name))
    return found


# --- host-side deadlines ------------------------------------------------------------------------------

# The host's deadline for a call ended it (Session::call's message), not the sandbox's lifetime or anything else.
STALLED = r"did not answer within the request's [0-9.]+ s and did not answer a liveness check"


@pytest.mark.parametrize("stall", ["run_code", "commands.run"])
def test_the_issues_sigstop_attacks_return_within_the_callers_timeout_and_leave_the_session_working(stall):
    """The issue's reproductions. The agent is out of the code's reach (test_session_boundary.py), so the code
    stops only itself; the call ends at its own timeout at the latest, and the session goes on."""
    with Sandbox.create(timeout=600) as sandbox:
        sandbox.run_code("1")

        def call():
            if stall == "run_code":
                return sandbox.run_code("import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)", timeout=3)
            return sandbox.commands.run("kill -STOP $PPID; sleep 60", timeout=3)

        # What ends the call is its own 3 s timeout (the sandbox lives 600 s: no other deadline is near); returned()
        # only keeps a call the product let hang from hanging the suite.
        try:
            returned(call, f"{stall} of code that stops its own parent")
        except TimeoutException as error:
            assert "timed out after 3 s" in str(error), error  # the caller's timeout, not a stalled agent's
        assert sandbox.run_code("6 * 7", timeout=5).text == "42"


def _agent_of(sandbox) -> int:
    """The host pid of the session's agent: the only child of its sandbox's init."""
    init = json.loads(sandbox._session.info())["host_pid"]
    children = Path(f"/proc/{init}/task/{init}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


@pytest.mark.parametrize("call", ["run_code", "commands.run"])
def test_a_stalled_agent_cannot_stall_the_caller(call):
    """Whatever stalls the agent (here the host stops it), every call ends at the caller's deadline: the SDK's
    timeout error, and the session, which can no longer be trusted to answer, is killed and says so."""
    with Sandbox.create(timeout=600) as sandbox:
        sandbox.run_code("1")
        agent = _agent_of(sandbox)
        os.kill(agent, signal.SIGSTOP)
        until(lambda: state(agent) == "T", "the agent stopping")
        # A stopped agent cannot answer, so the only thing that can end the call is the host's deadline for it:
        # its error says so (not a sandbox lifetime's, 600 s away); returned() keeps a hang from hanging the suite.
        with pytest.raises(TimeoutException, match=STALLED):
            if call == "run_code":
                returned(lambda: sandbox.run_code("1 + 1", timeout=3), "run_code on a stopped agent")
            else:
                returned(lambda: sandbox.commands.run("echo hi", timeout=3), "commands.run on a stopped agent")
        assert not sandbox.is_running()
        with pytest.raises(SandboxException, match="killed"):
            sandbox.run_code("1")


def test_a_stalled_agent_cannot_stall_a_call_bounded_by_request_timeout():
    with Sandbox.create(timeout=600) as sandbox:
        sandbox.files.list("/home/user")
        os.kill(_agent_of(sandbox), signal.SIGSTOP)
        with pytest.raises(TimeoutException, match=STALLED.replace("[0-9.]+", "2")):
            returned(lambda: sandbox.files.list("/home/user", request_timeout=2), "files.list on a stopped agent")
        with pytest.raises(SandboxException, match="closed"):
            sandbox.files.exists("/home/user")


def test_a_cell_that_ignores_its_interrupt_still_gets_its_restart():
    # The host deadline must not mistake a live agent that is restarting a context for a stalled one.
    with Sandbox.create(timeout=60) as sandbox:
        with pytest.raises(TimeoutException, match="restarted"):
            sandbox.run_code("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                             "while True:\n    time.sleep(0.1)", timeout=1)
        assert sandbox.run_code("6 * 7").text == "42"


# --- caps on what a session sends the host -----------------------------------------------------------

FLOOD = textwrap.dedent("""
    import json, resource, sys
    from e2beval import Sandbox

    def rss_peak_mib():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    with Sandbox.create(timeout=300, limits={"memory_mb": 256}) as sandbox:
        sandbox.run_code("1")
        before = rss_peak_mib()
        execution = sandbox.run_code(
            "class Big:\\n"
            "    def _repr_html_(self):\\n"
            "        return 'x' * (1 << 20)\\n"
            "for _ in range(700):\\n"
            "    display(Big())\\n"
            "print('done')\\n", timeout=240)
        after = rss_peak_mib()
        print(json.dumps({"growth_mib": after - before, "results": len(execution.results),
                          "stdout": execution.logs.stdout, "stderr": execution.logs.stderr,
                          "error": execution.error and execution.error.name,
                          "alive": sandbox.run_code("'still here'").text}))
""")

# What 700 displays of 1 MB may grow the host by: the per-call cap of rich output (64 MiB, docs/sessions.md)
# held as Python strings, plus the interpreter's own working memory. Without caps it grew by ~700 MiB.
FLOOD_RSS_GROWTH_BOUND_MIB = 160


def test_a_flood_of_rich_results_is_capped_with_a_marker():
    # A fresh process, so the peak RSS it measures is this call's alone.
    completed = subprocess.run([sys.executable, "-c", FLOOD], capture_output=True, text=True, timeout=280)
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["growth_mib"] < FLOOD_RSS_GROWTH_BOUND_MIB, report["growth_mib"]
    assert 0 < report["results"] < 700
    # The cell itself is not lost: its output, its end, and a marker saying what was dropped.
    assert "done\n" in report["stdout"]
    assert report["error"] is None
    assert any("dropped" in line and "e2beval" in line for line in report["stderr"]), report["stderr"]
    assert report["alive"] == "'still here'"


def test_a_deeply_nested_json_result_comes_back_intact():
    with Sandbox.create(timeout=60) as sandbox:
        execution = sandbox.run_code(
            "class Deep:\n"
            "    def _repr_json_(self):\n"
            "        value = 'bottom'\n"
            "        for _ in range(40):\n"
            "            value = {'level': value}\n"
            "        return value\n"
            "Deep()")
        assert execution.error is None
        value = execution.results[0].json
        for _ in range(40):
            value = value["level"]
        assert value == "bottom"


def test_a_value_nested_past_the_host_limit_is_dropped_with_a_marker_not_the_cell():
    with Sandbox.create(timeout=60) as sandbox:
        execution = sandbox.run_code(
            "class Deeper:\n"
            "    def _repr_json_(self):\n"
            "        value = 'bottom'\n"
            "        for _ in range(600):\n"
            "            value = [value]\n"
            "        return {'shallow': 1, 'deep': value}\n"
            "print('printed')\n"
            "Deeper()")
        assert execution.logs.stdout == ["printed\n"]
        result = execution.results[0].json
        assert result["shallow"] == 1
        assert "e2beval" in json.dumps(result["deep"]) and "dropped" in json.dumps(result["deep"])
        assert sandbox.run_code("1 + 1").text == "2"


# --- cleanup that does not depend on the owner's good exit --------------------------------------------

OWNER = textwrap.dedent("""
    import sys, time
    from e2beval import Sandbox
    sandbox = Sandbox.create(timeout=120)
    assert sandbox.run_code("1 + 1").text == "2"
    print("ready", flush=True)
    if sys.argv[1] == "wait":
        time.sleep(120)
    # "end": the script just ends, without sandbox.kill()
""")


def test_a_script_that_ends_without_kill_leaves_no_cgroup():
    if not _doctor()["cgroups"]["parents"]:
        pytest.fail("this host gives e2beval no cgroups, so there is nothing to check; run it where cgroups work")
    owner = subprocess.Popen([sys.executable, "-c", OWNER, "end"], stdout=subprocess.PIPE, text=True)
    output, _ = owner.communicate(timeout=120)
    assert owner.returncode == 0 and "ready" in output
    assert _cgroups_of(owner.pid) == []


# exclusive (docs/testing.md): its doctor must be the next e2beval start after the owner's death, to report the
# stale cgroups; any other worker's e2beval start in between sweeps them first (as it should).
@pytest.mark.exclusive
def test_a_killed_owner_leaves_cgroups_that_the_next_start_reports_and_removes():
    owner = subprocess.Popen([sys.executable, "-c", OWNER, "wait"], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout.readline().strip() == "ready"
        left = _cgroups_of(owner.pid)  # while it lives, its session's cgroups exist and are not touched
        assert left
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    # The next e2beval start (this doctor) finds them stale (their owner is gone), says so, and removes them.
    doctor = subprocess.run([_e2beval_cli(), "doctor"], capture_output=True, text=True, timeout=120).stdout
    assert "stale" in doctor and all(path in doctor for path in left), doctor
    assert all(not os.path.exists(path) for path in left)
    assert _cgroups_of(owner.pid) == []
    report = _doctor()["cgroups"]
    assert set(report) >= {"parents", "stale", "removed", "kept"}

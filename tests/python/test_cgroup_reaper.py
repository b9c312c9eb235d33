"""A process's sandbox cgroups go when it ends, removed by its cgroup reaper, however it ends (docs/sandbox.md,
"When the owner ends"): it exits normally, calls os._exit, or is SIGKILLed (a promptfoo worker that timed out) while its
sandboxes are alive — e2beval.Sandbox sessions (one running a background command), the warm pool's zygote, and
one-shot executions, warm and cold, still running. The cgroup reaper that removes them ends too, and it never
touches the cgroups of another e2beval process that is still alive. Real processes and cgroups throughout; the
cgroup directories are listed directly, never through an e2beval process (whose start would sweep them)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support import IMPORTABLE
from support.waiting import until

# exclusive (docs/testing.md): the cgroups must go by their owner's reaper, and any other worker's e2beval start
# would sweep them as stale first (as it should), so that their going would prove nothing.
pytestmark = pytest.mark.exclusive

WAIT_S = 120.0  # a bound so a stuck owner fails the test instead of hanging it; never a timing assertion

OWNER = IMPORTABLE + textwrap.dedent("""
    import errno, os, sys, threading
    from pathlib import Path
    import e2beval
    from e2beval import Sandbox
    from e2beval.sandbox import ready_sandbox_pids
    from support.waiting import until

    how, parent = sys.argv[1], sys.argv[2]
    prefix = f"e2beval-{os.getpid()}-"

    def my_cgroups():
        found = {}
        for name in os.listdir(parent):
            try:
                if name.startswith(prefix):
                    found[name] = Path(parent, name, "cgroup.procs").read_text().split()
            except OSError as gone:
                # A finished execution's cgroup, removed since it was listed: ENOENT, or ENODEV when the
                # kernel removed it while its file was being read (seen on cgroup v1).
                if gone.errno not in (errno.ENOENT, errno.ENODEV):
                    raise
        return found

    def children(pid):
        return sum(len(Path(task, "children").read_text().split()) for task in Path(f"/proc/{pid}/task").iterdir())

    sessions = [Sandbox.create(timeout=600) for _ in range(2)]
    assert sessions[0].run_code("6 * 7").text == "42"
    sessions[1].commands.run("sleep 1000", background=True)
    until(ready_sandbox_pids, "the refill of the pool of ready sandboxes")  # no session starts after this
    assert e2beval.execute("print('warm')", pool=True)["stdout"] == "warm\\n"
    warm_and_sessions = set(my_cgroups())
    assert e2beval.execute("print('cold')", pool=False)["stdout"] == "cold\\n"
    # A finished cold execution's cgroup goes after its result (docs/sandbox.md): wait, so that what the owner
    # has from here on is its sessions' and its zygote's.
    until(lambda: set(my_cgroups()) <= warm_and_sessions, "the removal of a finished cold execution's cgroup")
    if how != "exit":
        # Two one-shot executions still running when the owner ends: a warm one (the zygote's child, in one of
        # its cgroups, while its next standby waits in the other) and a cold one (its init and program in a
        # cgroup of their own). Daemon threads: a normal exit would wait for them.
        before = set(my_cgroups())
        zygote = e2beval.pool_info()[0]["pid"]
        for pool in (True, False):
            threading.Thread(target=e2beval.execute, args=("import time; time.sleep(600)",),
                             kwargs={"pool": pool, "timeout": 600}, daemon=True).start()
        until(lambda: children(zygote) >= 2, "the warm execution's start")
        until(lambda: any(len(procs) >= 2 for name, procs in my_cgroups().items() if name not in before),
              "the cold execution's start")
    print("ready", flush=True)
    for line in sys.stdin:  # "run": the first session runs code, so a live owner is seen to be served
        print(sessions[0].run_code("6 * 7").text, flush=True)
    if how == "_exit":
        os._exit(0)
    # "exit": the script just ends, sandboxes alive; "sigkill": the test kills it before stdin closes
""")


@pytest.fixture(scope="module")
def parents() -> list[str]:
    """Where sandbox cgroups are made, asked once before any owner starts (doctor's sweep is over by then)."""
    cli = Path(sys.executable).with_name("e2beval")
    doctor = json.loads(subprocess.run([str(cli), "doctor", "--json"], capture_output=True, text=True,
                                       timeout=WAIT_S).stdout)
    found = doctor["cgroups"]["parents"]
    assert found, "this host gives e2beval no cgroups, so there is nothing to check; run it where cgroups work"
    return found


def cgroups_of(pid: int, parents: list[str]) -> list[str]:
    return sorted(os.path.join(parent, name) for parent in parents for name in os.listdir(parent)
                  if name.startswith(f"e2beval-{pid}-"))


def reapers_of(pid: int) -> list[int]:
    """The cgroup reapers watching `pid` (their command line names its cgroups' prefix)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if arguments[0] == b"e2beval-cgroup-reaper" and arguments[1:2] and arguments[1].startswith(f"e2beval-{pid}-".encode()):
            found.append(int(entry.name))
    return found


def start_owner(how: str, parents: list[str]) -> subprocess.Popen:
    owner = subprocess.Popen([sys.executable, "-c", OWNER, how, parents[0]], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert owner.stdout.readline() == "ready\n", "the owner did not start its sandboxes"
    return owner


def end_owner(owner: subprocess.Popen, how: str) -> None:
    if how == "sigkill":
        owner.kill()
    else:
        owner.stdin.close()
    owner.wait(timeout=WAIT_S)
    if how != "sigkill":
        assert owner.returncode == 0


def wait_until_gone(pid: int, parents: list[str], what: str) -> None:
    """Waits until no cgroup of `pid` is left; fails saying which are, past the bound. Nothing in this test starts
    e2beval meanwhile (its start would sweep them), so what removes them is the owner's cgroup reaper."""
    until(lambda: not cgroups_of(pid, parents), what, timeout=WAIT_S, detail=lambda: cgroups_of(pid, parents))


@pytest.mark.parametrize("how", ["exit", "_exit", "sigkill"])
def test_an_owners_cgroups_go_with_it_by_its_reaper(how, parents):
    owner = start_owner(how, parents)
    try:
        # Sessions (two, and the pool's ready one), the zygote's two, the running cold execution's: per hierarchy.
        assert len(cgroups_of(owner.pid, parents)) >= 5 * len(parents)
        assert reapers_of(owner.pid), "no cgroup reaper watches the owner"
    finally:
        end_owner(owner, how)
    wait_until_gone(owner.pid, parents, f"the removal of the owner's cgroups after its end ({how})")
    # The reaper's work is done, so it ends (it is nobody's child to wait for it here: poll).
    until(lambda: not reapers_of(owner.pid), "the cgroup reaper's end after the owner's cgroups were gone")


def test_a_killed_owners_reaper_leaves_a_live_owners_cgroups_alone(parents):
    killed, alive = start_owner("sigkill", parents), start_owner("exit", parents)
    try:
        alive_cgroups = cgroups_of(alive.pid, parents)
        assert alive_cgroups
        end_owner(killed, "sigkill")
        wait_until_gone(killed.pid, parents, "the removal of the killed owner's cgroups")
        # Its reaper has finished, and removed nothing of the live owner's.
        until(lambda: not reapers_of(killed.pid), "the killed owner's cgroup reaper's end")
        assert cgroups_of(alive.pid, parents) == alive_cgroups
        alive.stdin.write("run\n")
        alive.stdin.flush()
        assert alive.stdout.readline() == "42\n"
    finally:
        killed.kill()
        end_owner(alive, "exit")
    wait_until_gone(alive.pid, parents, "the removal of the second owner's cgroups after its exit")


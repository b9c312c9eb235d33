"""The pool of ready sandboxes (docs/sessions.md): a sandbox handed out from it behaves exactly like a fresh one,
sandboxes handed out one after another share nothing, the pool refills, its sandboxes die with their owner,
and it can be turned off. Real sandboxes and real processes throughout."""
from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from e2beval.sandbox import Sandbox, TimeoutException, SandboxException, ready_sandbox_pids
from support import IMPORTABLE
from support.clock import before_ms, ms
from support.processes import gone, seconds_since_start
from support.waiting import until

# exclusive (docs/testing.md): the pool refills in the background, and a test waits for a ready sandbox of its
# kind under WAIT_S; with another worker's load beside it on 2 cores the refill missed that bound.
pytestmark = pytest.mark.exclusive

WAIT_S = 60.0  # a bound so a pool that never fills fails the test instead of hanging it; never a timing assertion


def _wait_for_ready_pool() -> list[int]:
    return until(ready_sandbox_pids, "the refill of the pool of ready sandboxes", timeout=WAIT_S)


def _host_pid(sandbox: Sandbox) -> int:
    return json.loads(sandbox._session.info())["host_pid"]


def _older_than(pid: int, age_s: float) -> bool:
    """Whether the process started at least age_s ago (or has ended: no longer one to wait for)."""
    age = seconds_since_start(pid)
    return age is None or age >= age_s


def _pooled_sandbox_created_at(age_s: float = 0.0, **options) -> tuple[Sandbox, int]:
    """A sandbox that comes from the pool: one that was started (and ready) at least age_s before create() was
    called, and the time just before that call (milliseconds, support.clock). The pool may hold ready sandboxes
    of other kinds (earlier tests' templates, CPU caps; ready_sandbox_pids() lists them all); a create() of this
    kind makes the pool start one of it, so the one to take is a ready sandbox that appeared after such a create.
    A create() that got a new sandbox anyway is tried again once the pool has started the next one."""
    known = set(ready_sandbox_pids())
    Sandbox.create(**options).kill()  # a create of a kind asks the pool to keep one of it ready

    def pooled():
        fresh = until(lambda: set(ready_sandbox_pids()) - known, "the pool starting a ready sandbox of this kind",
                      timeout=WAIT_S)
        until(lambda: all(_older_than(pid, age_s) for pid in fresh), f"the ready sandbox's age of {age_s} s")
        known.update(ready_sandbox_pids())
        before = before_ms()
        sandbox = Sandbox.create(**options)
        if _host_pid(sandbox) in fresh:
            return sandbox, before
        sandbox.kill()  # a new sandbox: the fresh one was of another kind; again once the pool starts the next
        return None
    return until(pooled, "create() handing out a sandbox the pool kept ready", timeout=WAIT_S)


def _pooled_sandbox(**options) -> Sandbox:
    return _pooled_sandbox_created_at(**options)[0]


def test_a_pooled_sandbox_is_handed_out_with_its_own_id_metadata_and_timeout_counted_from_hand_out():
    # The ready sandbox is older than the timeout asked for: were its lifetime counted from its start, it would
    # be dead at once.
    sandbox, before = _pooled_sandbox_created_at(age_s=3, timeout=2, metadata={"owner": "test"})
    assert sandbox.run_code("1 + 1").text == "2"
    info = sandbox.get_info()
    assert info.metadata == {"owner": "test"}
    assert ms(info.started_at) >= before  # its lifetime starts at hand-out, not when the pool started it
    assert info.end_at - info.started_at == dt.timedelta(seconds=2)
    assert sandbox.sandbox_id in [listed.sandbox_id for listed in Sandbox.list()]
    assert Sandbox.connect(sandbox.sandbox_id).sandbox_id == sandbox.sandbox_id
    other = Sandbox.create(timeout=60)
    assert other.sandbox_id != sandbox.sandbox_id
    other.kill()
    until(lambda: not sandbox.is_running(), "the end of the sandbox's 2 s lifetime, counted from hand-out")
    with pytest.raises((TimeoutException, SandboxException), match="timeout of 2 s"):
        sandbox.run_code("1")


def _first_look(sandbox: Sandbox) -> dict:
    first = sandbox.run_code("import os, sys\n(os.getcwd(), sorted(globals()), sorted(sys.modules))")
    return {"first cell": (first.execution_count, first.text, first.error, first.logs.stdout, first.logs.stderr),
            "contexts": [(c.id, c.language, c.cwd) for c in sandbox.list_code_contexts()],
            "files": [entry.name for entry in sandbox.files.list("/home/user")],
            "command": sandbox.commands.run("echo $HOME; pwd; env | sort").stdout}


def test_a_pooled_sandbox_starts_like_a_fresh_one():
    # A sandbox with envs never comes from the pool: with an empty mapping of them it is a fresh one, started
    # for this call, and otherwise the same.
    fresh = Sandbox.create(envs={})
    pooled = _pooled_sandbox()
    try:
        assert _host_pid(fresh) not in ready_sandbox_pids()
        fresh_look, pooled_look = _first_look(fresh), _first_look(pooled)
        assert pooled_look == fresh_look
        assert pooled_look["first cell"][0] == 1  # no cell ran before the user's first
        assert pooled_look["contexts"] == [("python", "python", "/home/user"),  # E2B's default contexts
                                           ("javascript", "javascript", "/home/user")]
    finally:
        fresh.kill()
        pooled.kill()


def test_sandboxes_handed_out_one_after_another_are_distinct_and_share_nothing():
    seen_ids, seen_pids = set(), set()
    previous = None
    for round_ in range(3):
        sandbox = _pooled_sandbox()
        assert sandbox.sandbox_id not in seen_ids and _host_pid(sandbox) not in seen_pids
        seen_ids.add(sandbox.sandbox_id)
        seen_pids.add(_host_pid(sandbox))
        # Nothing of the sandbox before it: no variable, no file, no background process.
        assert sandbox.run_code("secret").error.name == "NameError"
        assert not sandbox.files.exists("left-behind.txt")
        assert sandbox.commands.run("ls -A /dev/shm").stdout == ""
        sandbox.run_code(f"secret = {round_}")
        sandbox.files.write("left-behind.txt", "mine")
        sandbox.commands.run("touch /dev/shm/left-behind")
        if previous is not None:
            previous.kill()
        previous = sandbox  # still alive while the next one is handed out
    previous.kill()


def test_envs_reach_the_default_context_and_commands_exactly_as_given_at_creation():
    Sandbox.create().kill()
    ready = set(_wait_for_ready_pool())
    sandbox = Sandbox.create(envs={"E2BEVAL_POOL_TEST": "from-create"})
    try:
        assert _host_pid(sandbox) not in ready  # a sandbox with envs never comes from the pool
        assert ready <= set(ready_sandbox_pids())  # and takes nothing from it
        assert sandbox.run_code("import os\nos.environ['E2BEVAL_POOL_TEST']").text == "'from-create'"
        assert sandbox.commands.run("echo $E2BEVAL_POOL_TEST").stdout == "from-create\n"
        context = sandbox.create_code_context()
        assert sandbox.run_code("import os\nos.environ.get('E2BEVAL_POOL_TEST')", context=context).text == "'from-create'"
    finally:
        sandbox.kill()
    pooled = _pooled_sandbox()
    try:
        assert pooled.run_code("import os\nos.environ.get('E2BEVAL_POOL_TEST')").text is None
        assert pooled.commands.run("echo \"[$E2BEVAL_POOL_TEST]\"").stdout == "[]\n"
    finally:
        pooled.kill()


WORKSPACE_MIB = "import os\ns = os.statvfs('/home/user')\ns.f_blocks * s.f_frsize // (1 << 20)"


def test_sandboxes_of_another_kind_get_a_pool_of_their_own():
    small = _pooled_sandbox(limits={"workspace_mb": 100})
    default = _pooled_sandbox()
    try:
        assert small.run_code(WORKSPACE_MIB).text == "100"
        assert default.run_code(WORKSPACE_MIB).text == "512"
    finally:
        small.kill()
        default.kill()


OWNER = IMPORTABLE + textwrap.dedent("""
    import json, os, sys, time
    from e2beval.sandbox import Sandbox, ready_sandbox_pids
    from support.waiting import until
    sandbox = Sandbox.create(timeout=120)
    assert sandbox.run_code("1 + 1").text == "2"
    until(ready_sandbox_pids, "the refill of the pool of ready sandboxes")
    pids = ready_sandbox_pids() + [json.loads(sandbox._session.info())["host_pid"]]
    print(json.dumps(pids), flush=True)
    if sys.argv[1] == "wait":
        time.sleep(120)
    # "end": the script just ends, without sandbox.kill()
""")


def _e2beval_cli() -> str:
    return str(Path(sys.executable).with_name("e2beval"))


def _cgroups_of(pid: int) -> list[str]:
    doctor = json.loads(subprocess.run([_e2beval_cli(), "doctor", "--json"], capture_output=True, text=True,
                                       timeout=120).stdout)
    parents = doctor["cgroups"]["parents"]
    assert parents, "this host gives e2beval no cgroups, so there is nothing to check; run it where cgroups work"
    return [os.path.join(parent, name) for parent in parents for name in os.listdir(parent)
            if name.startswith(f"e2beval-{pid}-")]


def _gone(pids: list[int]) -> bool:
    until(lambda: all(gone(pid) for pid in pids), f"the end of processes {pids}", timeout=WAIT_S,
          detail=lambda: [pid for pid in pids if not gone(pid)])
    return True


def test_an_owner_that_ends_leaves_no_process_or_cgroup_of_its_ready_sandboxes():
    owner = subprocess.Popen([sys.executable, "-c", OWNER, "end"], stdout=subprocess.PIPE, text=True)
    output, _ = owner.communicate(timeout=180)
    assert owner.returncode == 0
    pids = json.loads(output)
    assert len(pids) == 2  # the ready sandbox and the one handed out
    assert _gone(pids)
    assert _cgroups_of(owner.pid) == []


def test_a_killed_owner_takes_its_ready_sandboxes_with_it():
    owner = subprocess.Popen([sys.executable, "-c", OWNER, "wait"], stdout=subprocess.PIPE, text=True)
    try:
        pids = json.loads(owner.stdout.readline())
        assert not any(gone(pid) for pid in pids)
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    assert _gone(pids)
    # Their cgroups are stale now; the next e2beval start (this doctor) removes them (docs/sessions.md).
    _cgroups_of(owner.pid)
    assert _cgroups_of(owner.pid) == []


DISABLED = textwrap.dedent("""
    import time
    from e2beval.sandbox import Sandbox, ready_sandbox_pids
    for _ in range(3):
        with Sandbox.create() as sandbox:
            assert sandbox.run_code("x = 1\\nx + 1").text == "2"
        time.sleep(0.5)
        assert ready_sandbox_pids() == [], ready_sandbox_pids()
    print("ok")
""")


def test_the_pool_can_be_turned_off():
    env = dict(os.environ, E2BEVAL_SESSION_POOL="0")
    done = subprocess.run([sys.executable, "-c", DISABLED], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


def test_a_pool_size_that_is_not_a_number_is_refused_with_what_to_do():
    env = dict(os.environ, E2BEVAL_SESSION_POOL="lots")
    done = subprocess.run([sys.executable, "-c", "from e2beval import Sandbox; Sandbox.create()"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "E2BEVAL_SESSION_POOL must be the number of ready sessions" in done.stderr and "'lots'" in done.stderr


FORKED = IMPORTABLE + textwrap.dedent("""
    import json, os, sys
    from e2beval.sandbox import Sandbox, ready_sandbox_pids
    from support.waiting import until
    sandbox = Sandbox.create(timeout=120)
    until(ready_sandbox_pids, "the refill of the pool of ready sandboxes")
    ready = ready_sandbox_pids()
    child = os.fork()
    if child == 0:
        sys.exit(0)  # a forked child that ends normally (atexit handlers and static destructors run)
    _, status = os.waitpid(child, 0)
    assert status == 0, status
    assert sandbox.run_code("1 + 1").text == "2", "the child's exit killed its parent's sandbox"
    pooled = Sandbox.create(timeout=120)
    assert json.loads(pooled._session.info())["host_pid"] in ready, "the child's exit emptied its parent's pool"
    assert pooled.run_code("2 + 2").text == "4"
    print("ok")
""")


def test_a_forked_child_that_exits_leaves_its_parents_sandboxes_and_pool_alone():
    done = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr[-2000:]


THREAD_CHURN = textwrap.dedent("""
    import threading
    from e2beval.sandbox import Sandbox
    stop = threading.Event()

    def churn():  # threads being created all the time, as a pool's refill thread or a threaded program does
        while not stop.is_set():
            thread = threading.Thread(target=lambda: None)
            thread.start()
            thread.join()

    churners = [threading.Thread(target=churn) for _ in range(2)]
    for thread in churners:
        thread.start()
    try:
        for _ in range(25):
            Sandbox.create(timeout=60).kill()
    finally:
        stop.set()
    print("ok")
""")


def test_sandboxes_start_while_the_owner_creates_threads():
    # A sandbox's init is a copy of one thread of the host: glibc's setresgid() there waited forever for a thread
    # the host was creating at the moment of the copy (seen as cross-session corpus cases that hung).
    env = dict(os.environ, E2BEVAL_SESSION_POOL="0")
    done = subprocess.run([sys.executable, "-c", THREAD_CHURN], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr[-2000:]

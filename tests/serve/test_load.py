"""Load: 50 official-SDK clients at once (threads of one process, as an agent framework runs them), each
creating a sandbox and making 20 run_code calls, against one `e2beval serve --max-sandboxes 50`. Every call
must answer right, and afterwards nothing may be left behind: no sandbox listed, no process below the server
beyond what it had at rest, no sandbox cgroup beyond what it had at rest (the session pool keeps one ready
sandbox, with its processes and cgroup, at rest as before), and the host's mount table unchanged.

It runs in tests/serve (so in scripts/test.sh) because it takes well under a minute here (about 7 s on 2 shared
cores)."""
import os
import threading
from pathlib import Path

import pytest
from e2b_code_interpreter import Sandbox

from serve_process import ServeProcess
from support.processes import descendants
from support.waiting import until

# exclusive (docs/testing.md): 50 clients at once crowd out every other test, and its server's rest state is
# awaited under a bound that a crowded machine could exceed.
pytestmark = pytest.mark.exclusive

CLIENTS = 50
CALLS = 20
PATIENCE = 60  # seconds to wait for the server to settle back to rest: a bound, not a measurement


def _sandbox_cgroups(pid):
    """The sandbox cgroups the server made (named e2beval-<owner pid>-...), in every hierarchy it is in."""
    found = set()
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in (controllers.split(",") if controllers else [""]):
            controller = controller.removeprefix("name=")
            base = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
            if not base.is_dir():
                continue
            # os.walk, not rglob: a sandbox's cgroup removed while the walk is in it is skipped, not an error.
            for directory, names, _ in os.walk(base):
                found.update(os.path.realpath(os.path.join(directory, name))  # cpu and cpuacct may be one
                             for name in names if name.startswith(f"e2beval-{pid}-"))  # hierarchy under two names
    return found


def _children(pid):
    try:
        return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
                for child in (task / "children").read_text().split()]
    except OSError:  # it ended while we looked
        return []


def _ready_sandbox_up(pid):
    """The server's one ready sandbox (--ready-sandboxes' default) is up: its init, its agent, and the Python kernel
    the agent starts before the first cell (a launcher and, below it, the kernel)."""
    inits = _children(pid)
    agents = _children(inits[0]) if len(inits) == 1 else []
    return len(agents) == 1 and any(_children(launcher) for launcher in _children(agents[0]))


def _at_rest(pid):
    return len(descendants(pid)), len(_sandbox_cgroups(pid))


def _client(results, index):
    try:
        sandbox = Sandbox.create(timeout=300)
        try:
            for call in range(CALLS):
                text = sandbox.run_code(f"{index} * 1000 + {call}").text
                assert text == str(index * 1000 + call), (index, call, text)
        finally:
            sandbox.kill()
        results[index] = "ok"
    except Exception as error:  # noqa: BLE001 - every failure is reported with its client
        results[index] = repr(error)


def test_fifty_clients_twenty_calls_each_leave_nothing_behind(monkeypatch):
    # The creation rate is raised so that the 50 creations arrive at once, as the load is meant to be.
    server = ServeProcess("--max-sandboxes", str(CLIENTS), "--creation-rate", "1000")
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)
    pid = server.process.pid
    try:
        mounts_before = Path("/proc/self/mountinfo").read_text()
        Sandbox.create(timeout=60).kill()  # brings up the session pool's ready sandbox: the server at rest
        rest = until(lambda: _ready_sandbox_up(pid) and _at_rest(pid), "the session pool's ready sandbox starting",
                     timeout=PATIENCE)

        results = [None] * CLIENTS
        threads = [threading.Thread(target=_client, args=(results, index)) for index in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results == ["ok"] * CLIENTS, [result for result in results if result != "ok"][:5]

        assert Sandbox.list().next_items() == []
        until(lambda: _at_rest(pid) == rest, f"the server coming back to rest ({rest}: processes below it, sandbox cgroups)",
              timeout=PATIENCE, poll=0.5, detail=lambda: f"{_at_rest(pid)}; cgroups {sorted(_sandbox_cgroups(pid))}")
        assert Path("/proc/self/mountinfo").read_text() == mounts_before
    finally:
        assert server.stop() == 0

"""After SIGTERM, `e2beval serve` leaves no sandbox behind: no process of a session, no cgroup."""
import os

from e2b_code_interpreter import Sandbox

from serve_process import ServeProcess
from support.processes import descendants


def _sandbox_cgroups(owner_pid):
    found = []
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        found += [name for name in dirs if name.startswith(f"e2beval-{owner_pid}-")]
    return found


def test_sigterm_kills_every_sandbox(monkeypatch):
    server = ServeProcess()
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)
    sandboxes = [Sandbox.create(timeout=120) for _ in range(2)]
    assert sandboxes[0].run_code("1").text == "1"
    sandbox_processes = descendants(server.process.pid)
    assert sandbox_processes, "the sandboxes' processes should be the server's descendants"
    assert server.stop() == 0
    alive = [pid for pid in sandbox_processes if os.path.exists(f"/proc/{pid}")]
    assert alive == []
    assert _sandbox_cgroups(server.process.pid) == []

"""`e2beval serve --ready-sandboxes N`: N sandboxes are started before any request (their init processes are the
server's children), and a create hands one of them out instead of starting another (docs/serve.md, "Speed")."""
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

from e2b_code_interpreter import Sandbox

from serve_process import ServeProcess
from support.waiting import until


def children(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as listed:
            found += [int(child) for child in listed.read().split()]
    return set(found)


def wait_for_children(pid, count):
    until(lambda: len(children(pid)) >= count, f"the server's {count} ready sandboxes starting",
          detail=lambda: f"{len(children(pid))} children")
    return children(pid)


def test_ready_sandboxes_start_before_any_request_and_are_handed_out(monkeypatch):
    server = ServeProcess("--ready-sandboxes", "3", "--max-sandboxes", "5", "--creation-rate", "100")
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        ready = wait_for_children(server.process.pid, 3)  # no request has been made yet
        assert len(ready) == 3
        with ThreadPoolExecutor(3) as pool:
            sandboxes = list(pool.map(lambda _: Sandbox.create(timeout=60), range(3)))
        assert [sandbox.run_code("6 * 7").text for sandbox in sandboxes] == ["42"] * 3
        for sandbox in sandboxes:
            sandbox.kill()
        # Killed sandboxes' processes go: had the creates started sandboxes of their own, the three that were
        # ready would still be alive, waiting in the pool.
        assert not ready & children(server.process.pid)
    finally:
        assert server.stop() == 0


def test_more_ready_sandboxes_than_can_be_alive_is_refused():
    result = subprocess.run(["e2beval", "serve", "--port", "0", "--ready-sandboxes", "6", "--max-sandboxes", "5"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "--ready-sandboxes 6 is more than --max-sandboxes 5" in result.stderr

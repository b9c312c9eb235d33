# why: os.fork() in a loop from a Python cell (children loop too) is held by pids.max; the cell's call returns at its timeout, and kill() clears every process
# create: {"timeout": 60, "limits": {"max_processes": 48}}
# timeout: 40
from e2beval.sandbox import SandboxException

CELL = """
import os, time
for _ in range(10000):
    try:
        os.fork()
    except OSError:
        time.sleep(0.01)
"""


def attack(sandbox, host):
    try:
        sandbox.run_code(CELL, timeout=3)
    except SandboxException:
        pass
    population = len(host.session_pids(sandbox))
    assert population <= int(host.cgroup_file(sandbox, "pids.max")), f"{population} processes in a session limited to 48"
    sandbox.kill()
    assert host.wait_session_gone(sandbox, 10) == []

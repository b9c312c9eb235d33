"""`e2beval serve --default-timeout S --memory-mb MB --cpus N`: the lifetime of a sandbox whose create names none,
and the memory and CPU cap of every sandbox (docs/serve.md, "Limits")."""

import os
import shutil
import subprocess

import httpx
import pytest
from e2b_code_interpreter import Sandbox

from serve_process import ServeProcess


def test_default_timeout_and_memory_apply_to_every_sandbox(monkeypatch):
    server = ServeProcess("--default-timeout", "7", "--memory-mb", "300", "--max-sandboxes", "3")
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        # A raw create without "timeout" (the SDKs always send one) lives --default-timeout seconds.
        created = httpx.post(server.env["E2B_API_URL"] + "/sandboxes", headers={"X-API-KEY": server.env["E2B_API_KEY"]},
                             json={"templateID": "code-interpreter-v1"}, timeout=60)
        assert created.status_code == 201, created.text
        info = Sandbox.get_info(created.json()["sandboxID"])
        assert round((info.end_at - info.started_at).total_seconds()) == 7
        assert info.memory_mb == 300
        Sandbox.kill(created.json()["sandboxID"])

        with Sandbox.create(timeout=60) as sandbox:  # the SDK names its timeout: that one counts
            info = sandbox.get_info()
            assert round((info.end_at - info.started_at).total_seconds()) == 60 and info.memory_mb == 300
            held = sandbox.run_code("blocks = [bytearray(1 << 20) for _ in range(100)]\nlen(blocks)")
            assert held.text == "100", held
            too_much = sandbox.run_code("more = [bytearray(1 << 20) for _ in range(400)]\nlen(more)")
            assert too_much.error is not None and too_much.text is None, too_much
    finally:
        assert server.stop() == 0


# Two processes spinning for `seconds`, then the CPU time the tree used and the wall time it took.
BUSY_TWO_PROCESSES = """
import os, time
def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
before = os.times()  # the kernel's own start (an IPython kernel's import) is not the cell's
started = time.monotonic()
child = os.fork()
if child == 0:
    spin(1.0)
    os._exit(0)
spin(1.0)
os.waitpid(child, 0)
times = os.times()
print(sum(times[:4]) - sum(before[:4]), time.monotonic() - started)
"""


def test_cpus_caps_every_sandbox_and_is_its_cpu_count(monkeypatch):
    server = ServeProcess("--cpus", "0.25", "--max-sandboxes", "2", "--ready-sandboxes", "0")
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        with Sandbox.create(timeout=60) as sandbox:
            assert sandbox.get_info().cpu_count == 1  # a quarter of a CPU: at most one CPU's worth, rounded up
            execution = sandbox.run_code(BUSY_TWO_PROCESSES)
            assert execution.error is None, execution.error
            cpu, wall = map(float, execution.logs.stdout[0].split())
            # 0.25 s of CPU per second of wall time, with room for the quota's 100 ms periods; uncapped, two
            # spinners on this 2-CPU machine use well above 0.45 s per second.
            assert cpu < 0.45 * wall, (cpu, wall)
    finally:
        assert server.stop() == 0


def test_the_default_cpu_cap_is_one_cpu_and_cpus_0_lifts_it(monkeypatch):
    for options, count in ((), 1), (("--cpus", "2"), 2):
        server = ServeProcess("--max-sandboxes", "2", "--ready-sandboxes", "0", *options)
        try:
            for name, value in server.env.items():
                monkeypatch.setenv(name, value)
            with Sandbox.create(timeout=60) as sandbox:
                assert sandbox.get_info().cpu_count == count
        finally:
            assert server.stop() == 0


@pytest.mark.parametrize("value", ["abc", "-1", "0.001", "5000", ""])
def test_a_bad_cpus_value_is_refused_with_what_it_expects(value):
    binary = os.environ.get("E2BEVAL_SERVE_BINARY") or shutil.which("e2beval")
    result = subprocess.run([binary, "serve", "--port", "0", "--cpus", value], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result
    assert "--cpus expects a number of CPUs from 0.01 to 4096" in result.stderr
    assert "export" not in result.stdout

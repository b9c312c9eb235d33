"""A CPU cap (``limits: {cpus: N}``): the cgroup CPU quota of a one-shot execution's or a session's cgroup
(docs/sandbox.md, "Limits"). Checked twice: the quota the kernel holds for the sandbox's cgroup, read from the
host, and what it does to a program that would use every CPU (its CPU time stays near the quota's share of its
wall time; uncapped, two busy processes on this 2-CPU machine use up to twice their wall time). Only upper bounds
are asserted: a loaded machine can make a program use less CPU, never more than its quota."""

import json
import os
import re

import pytest

import e2beval
from e2beval import Sandbox

# Two processes spinning for the given wall time, then the CPU time the whole tree used, as the kernel counts
# it for the sandbox's processes (os.times() of the parent covers its reaped children).
BUSY_TWO_PROCESSES = """
import os, time
def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
started = time.monotonic()
child = os.fork()
if child == 0:
    spin({seconds})
    os._exit(0)
spin({seconds})
os.waitpid(child, 0)
times = os.times()
print(times.user + times.system + times.children_user + times.children_system, time.monotonic() - started)
"""


def _cgroup_quota(host_pid: int) -> tuple[int, int]:
    """(quota, period) in microseconds of the cpu cgroup `host_pid` is in: v2 cpu.max, v1 cfs_quota/period
    (-1 or "max" is no quota, returned as -1)."""
    lines = open(f"/proc/{host_pid}/cgroup").read().splitlines()
    mounts = open("/proc/self/mountinfo").read().splitlines()
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for mount in mounts:
            before, after = mount.split(" - ")
            fields, kind = before.split(), after.split()
            if controllers == "" and kind[0] == "cgroup2" and fields[3] == "/":
                quota, period = open(os.path.join(fields[4] + path, "cpu.max")).read().split()
                return (-1 if quota == "max" else int(quota)), int(period)
            if controllers and "cpu" in controllers.split(",") and kind[0] == "cgroup" \
                    and "cpu" in kind[2].split(",") and fields[3] == "/":
                directory = fields[4] + path
                quota = int(open(os.path.join(directory, "cpu.cfs_quota_us")).read())
                return quota, int(open(os.path.join(directory, "cpu.cfs_period_us")).read())
    raise AssertionError(f"no cpu cgroup for pid {host_pid}: {lines}")


def test_a_session_gets_the_cpu_quota_it_asks_for():
    with Sandbox.create(limits={"cpus": 0.5}) as sandbox:
        host_pid = json.loads(sandbox._session.info())["host_pid"]
        assert _cgroup_quota(host_pid) == (50_000, 100_000)
    with Sandbox.create() as uncapped:  # no cap by default: the quota is the kernel's "none"
        assert _cgroup_quota(json.loads(uncapped._session.info())["host_pid"])[0] == -1


# A quota of 0.25 CPUs keeps the tree near 0.25 s of CPU per second of wall time; 0.45 leaves room for the
# quota's 100 ms periods and the interpreter's start-up. Uncapped, two spinners on this 2-CPU machine get well above
# it even beside other work (their fair share of two CPUs).
CAPPED_RATIO = 0.45


def test_a_capped_session_cannot_use_more_cpu_than_its_quota():
    with Sandbox.create(limits={"cpus": 0.25}) as sandbox:
        execution = sandbox.run_code(BUSY_TWO_PROCESSES.format(seconds=1.0))
        assert execution.error is None, execution.error
        cpu, wall = map(float, execution.logs.stdout[0].split())
        assert cpu < CAPPED_RATIO * wall, (cpu, wall)


def test_a_one_shot_execution_is_capped_warm_and_cold():
    code = BUSY_TWO_PROCESSES.format(seconds=0.8)
    for pool in (True, False):
        result = e2beval.execute(code, limits={"cpus": 0.25, "wall_time_s": 10, "cpu_time_s": 10}, pool=pool)
        assert result["outcome"] == "ok", result
        cpu, wall = map(float, result["stdout"].split())
        assert cpu < CAPPED_RATIO * wall, (pool, cpu, wall)
        # The cgroup's own count of the tree's CPU time agrees.
        assert result["cpu_time_s"] < CAPPED_RATIO * wall + 0.1, (pool, result["cpu_time_s"], wall)
    # That the quota is lifted for the next execution of the same warm cgroups that asks for none is
    # tests/cpp/test_cgroup_cpu_quota.cpp's (read from the quota file: no timing involved).


@pytest.mark.parametrize("cpus, message", [
    (-1, "limit 'cpus' must be positive"),
    (0.001, "limit 'cpus' must be at least 0.01"),
    (5000, "limit 'cpus' must be between 0 (no cap) and 4096, got 5000"),
])
def test_a_cpu_cap_out_of_range_is_refused_with_what_to_do(cpus, message):
    with pytest.raises(e2beval.InputError, match=re.escape(message)):
        e2beval.execute("print(1)", limits={"cpus": cpus})
    with pytest.raises(e2beval.InputError, match=re.escape(message)):
        Sandbox.create(limits={"cpus": cpus})

# why: a cell that allocates without bound is stopped by the session cgroup's memory.max (128 MiB here): the call returns (an error, or the context restarted), the cgroup's peak stays at the limit and the session stays usable or ends cleanly
# create: {"timeout": 60, "limits": {"memory_mb": 128}}
# timeout: 40
from e2beval.sandbox import SandboxException

CELL = "hoard = []\nwhile True:\n    hoard.append(bytearray(8 << 20))"


def attack(sandbox, host):
    assert host.cgroup_file(sandbox, "memory.max", "memory.limit_in_bytes") == str(128 << 20), host.cgroup_file(sandbox, "memory.max", "memory.limit_in_bytes")
    try:
        execution = sandbox.run_code(CELL, timeout=15)
        assert execution.error is not None, "an unbounded allocation finished without error"
    except SandboxException:
        pass  # the kernel was OOM-killed: a clear error is fine
    peak = host.cgroup_file(sandbox, "memory.peak", "memory.max_usage_in_bytes")
    if peak is not None:
        assert int(peak) <= (128 << 20), f"memory.peak {peak} above the limit"
    if sandbox.is_running():
        assert sandbox.commands.run("echo usable").stdout == "usable\n"

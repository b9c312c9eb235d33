# why: /dev/shm is a size-limited tmpfs of the session whose pages are charged to its memory cgroup: writing 512 MiB into it in a 128 MiB session fails inside and the host's /dev/shm gains nothing
# create: {"timeout": 60, "limits": {"memory_mb": 128}}
# timeout: 40
import os

from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    try:
        sandbox.commands.run(f"dd if=/dev/zero of=/dev/shm/fill-{host.token} bs=1M count=512", timeout=20)
        raise AssertionError("512 MiB fit into /dev/shm of a 128 MiB session")
    except SandboxException:
        pass  # ENOSPC, or the writer OOM-killed
    assert not [n for n in os.listdir("/dev/shm") if host.token in n]
    peak = host.cgroup_file(sandbox, "memory.peak", "memory.max_usage_in_bytes")
    if peak is not None:
        assert int(peak) <= (128 << 20)

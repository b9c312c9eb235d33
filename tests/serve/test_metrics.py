"""The control plane's GET /sandboxes/{id}/metrics through the official SDK's get_metrics (e2b 2.63 asks for it
at envd 0.1.5 and more, disk metrics at 0.2.4): CPU count and use, memory used and total from the session's
cgroup, disk used and total of its workspace (/home/user and /tmp together); memory the code holds and files written
show up."""
import pytest
from e2b import SandboxNotFoundException
from e2b_code_interpreter import Sandbox

MiB = 1 << 20


def only_metric(metrics):
    assert len(metrics) == 1, metrics  # one sample, measured at the call
    return metrics[0]


def test_metrics_show_memory_held_and_a_file_written(sandbox):
    before = only_metric(sandbox.get_metrics())
    assert before.cpu_count >= 1 and 0 <= before.cpu_used_pct <= 100
    assert before.mem_total == 1024 * MiB  # the session's memory limit
    assert before.disk_total == 512 * MiB  # its workspace
    assert 0 < before.mem_used < before.mem_total
    assert 0 <= before.disk_used < before.disk_total

    held = sandbox.run_code("held = bytearray(200 * 1024 * 1024)\nfor i in range(0, len(held), 4096): held[i] = 1")
    assert held.error is None, held.error
    sandbox.files.write("/home/user/big.bin", b"\1" * (64 * MiB))
    sandbox.commands.run("head -c 32M /dev/zero > /tmp/scratch.bin")  # /tmp is on the same workspace

    after = only_metric(Sandbox.get_metrics(sandbox.sandbox_id))  # the class method: same route
    assert after.mem_used >= before.mem_used + 200 * MiB
    assert after.disk_used >= before.disk_used + 96 * MiB
    assert after.disk_total == 512 * MiB
    assert after.timestamp >= before.timestamp


def test_metrics_of_an_unknown_sandbox_raise_not_found(serve):
    with pytest.raises(SandboxNotFoundException):
        Sandbox.get_metrics("local-doesnotexist00000")

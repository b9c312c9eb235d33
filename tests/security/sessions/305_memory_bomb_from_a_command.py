# why: a command that allocates without bound (outside the agent) is OOM-killed inside the session's 128 MiB cgroup; the call returns with a non-zero exit and the agent keeps answering
# create: {"timeout": 60, "limits": {"memory_mb": 128}}
# timeout: 40
from e2beval.sandbox import CommandExitException, SandboxException


def attack(sandbox, host):
    try:
        sandbox.commands.run("python3 -c 'h = []\nwhile True: h.append(bytearray(8 << 20))'", timeout=20)
        raise AssertionError("an unbounded allocation exited 0")
    except CommandExitException as killed:
        assert killed.exit_code != 0
    except SandboxException:
        pass
    peak = host.cgroup_file(sandbox, "memory.peak", "memory.max_usage_in_bytes")
    if peak is not None:
        assert int(peak) <= (128 << 20)
    assert sandbox.is_running() and sandbox.run_code("'agent alive'").text == "'agent alive'"

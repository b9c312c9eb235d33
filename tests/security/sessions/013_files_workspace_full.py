# why: a files.write larger than the session's workspace (a size-limited tmpfs) is refused with a SandboxException and the session goes on working
# create: {"timeout": 60, "limits": {"workspace_mb": 16}}
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    try:
        sandbox.files.write("big.bin", b"\0" * (32 << 20))
        raise AssertionError("a 32 MiB files.write into a 16 MiB workspace succeeded")
    except SandboxException as refused:
        assert "space" in str(refused).lower() or "ENOSPC" in str(refused), str(refused)
    sandbox.commands.run("rm -f big.bin")
    sandbox.files.write("small.txt", "fits")
    assert sandbox.files.read("small.txt") == "fits"
    assert sandbox.run_code("6 * 7").text == "42"

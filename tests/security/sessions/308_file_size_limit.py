# why: the session's largest-file limit (RLIMIT_FSIZE, 1 MiB here) stops a command, a cell and files.write from creating a bigger file
# create: {"timeout": 60, "limits": {"file_size_bytes": 1048576}}
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    try:
        sandbox.commands.run("dd if=/dev/zero of=big bs=1M count=4")
        raise AssertionError("a command wrote a 4 MiB file past a 1 MiB limit")
    except SandboxException:
        pass
    execution = sandbox.run_code("open('big2', 'wb').write(b'x' * (4 << 20))")
    assert execution.error is not None, "a cell wrote a 4 MiB file past a 1 MiB limit"
    try:
        sandbox.files.write("big3", b"x" * (4 << 20))
        raise AssertionError("files.write wrote a 4 MiB file past a 1 MiB limit")
    except SandboxException:
        pass
    sizes = [sandbox.files.get_info(n).size for n in ("big", "big2", "big3") if sandbox.files.exists(n)]
    assert all(size <= (1 << 20) for size in sizes), sizes

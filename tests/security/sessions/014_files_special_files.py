# why: files.read of endless or blocking files (a FIFO, /dev/zero, /dev/urandom, the agent's own stdin, stdout and control fds) is refused at once instead of hanging or exhausting the agent, and the session keeps answering
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    sandbox.commands.run("mkfifo fifo")
    paths = ["fifo", "/dev/zero", "/dev/urandom", "/dev/random", "/proc/self/fd/0", "/proc/self/fd/1",
             "/proc/self/fd/2", "/proc/self/fd/4", "/proc/kmsg", "/proc/self/mem", "/proc/1/mem"]
    for path in paths:
        try:
            data = sandbox.files.read(path, format="bytes")
            assert len(data) < (64 << 20), f"files.read({path!r}) returned {len(data)} bytes"
        except SandboxException:
            pass
        assert sandbox.run_code("1 + 1").text == "2", f"the session stopped answering after files.read({path!r})"

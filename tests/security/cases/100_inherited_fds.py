# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: any fd inherited from the host (the test runner's files, sockets, the supervisor's report socket, a seccomp listener) is a way out; only 0, 1, 2 may be open, and they must be pipes.
import os
fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
listing_fd = max(fds)  # the directory handle used by listdir itself is already closed, but be lenient
details = {}
for fd in fds:
    try:
        details[fd] = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
extra = {fd: target for fd, target in details.items() if fd > 2}
print(("LEAKED inherited fds " + repr(extra)) if extra else "BLOCKED only fds 0,1,2 are open")
for fd in (0, 1, 2):
    print(("BLOCKED" if details.get(fd, "").startswith("pipe:") else "LEAKED") + f" fd {fd} -> {details.get(fd)}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: setns(2) into the namespaces of pid 1 and into its own; needs CAP_SYS_ADMIN over the target and init is non-dumpable; seccomp denies setns.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sys_call(nr, *args):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return result, ctypes.get_errno()
def report(name, result, err):
    if result == -1:
        print(f"BLOCKED {name}: errno {err} {os.strerror(err)}")
    else:
        print(f"LEAKED {name} returned {result}")
for ns in ["mnt", "net", "pid", "user", "uts", "ipc", "cgroup"]:
    for pid in ("1", "self"):
        try:
            fd = os.open(f"/proc/{pid}/ns/{ns}", os.O_RDONLY)
        except OSError as e:
            print(f"BLOCKED open /proc/{pid}/ns/{ns}: {e.errno}")
            continue
        report(f"setns(/proc/{pid}/ns/{ns})", *sys_call(308, fd, 0))
        os.close(fd)

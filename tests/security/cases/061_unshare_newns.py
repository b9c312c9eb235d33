# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: unshare(CLONE_NEWNS) / CLONE_NEWNET / CLONE_NEWPID without a new user namespace: need CAP_SYS_ADMIN, which the program does not have; seccomp denies unshare too.
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
for name, flag in [("CLONE_NEWNS", 0x20000), ("CLONE_NEWNET", 0x40000000), ("CLONE_NEWPID", 0x20000000), ("CLONE_NEWUTS", 0x4000000), ("CLONE_NEWIPC", 0x8000000), ("CLONE_NEWCGROUP", 0x2000000)]:
    report(f"unshare({name})", *sys_call(272, flag))

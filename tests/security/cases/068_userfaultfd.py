# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: userfaultfd(2) (used to win kernel race conditions in exploits); unprivileged kernel-mode uffd is disabled here, but UFFD_USER_MODE_ONLY is allowed unless seccomp denies the call.
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
report("userfaultfd(O_CLOEXEC)", *sys_call(323, 0o2000000))
report("userfaultfd(UFFD_USER_MODE_ONLY)", *sys_call(323, 1))

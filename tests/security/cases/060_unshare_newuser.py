# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: unshare(CLONE_NEWUSER) gives a fresh user namespace with full capabilities inside it, opening mount/netfilter/etc. kernel attack surface; seccomp must deny it (today only nesting limits apply).
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
report("unshare(CLONE_NEWUSER)", *sys_call(272, 0x10000000))
# the same through clone(2) in a child process (fork-like clone with CLONE_NEWUSER)
import signal
result, err = sys_call(56, 0x10000000 | signal.SIGCHLD, 0, 0, 0, 0)
if result == 0:
    os._exit(0)
if result > 0:
    os.waitpid(result, 0)
report("clone(CLONE_NEWUSER)", result, err)

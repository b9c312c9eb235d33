# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: ptrace(PTRACE_TRACEME) (first step of many ptrace tricks and the basis of ptrace-based kernel exploits); seccomp denies ptrace entirely, so it must fail with EPERM.
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
report("ptrace(PTRACE_TRACEME)", *sys_call(101, 0, 0, 0, 0))

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: ptrace(PTRACE_ATTACH) and PTRACE_SEIZE to pid 1, the sandbox init that is a copy of the host process; non-dumpable init (and seccomp) must refuse.
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
report("ptrace(PTRACE_ATTACH, 1)", *sys_call(101, 16, 1, 0, 0))
report("ptrace(PTRACE_SEIZE, 1)", *sys_call(101, 0x4206, 1, 0, 0))

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: pivot_root(2) in the sandbox's mount namespace; needs CAP_SYS_ADMIN; seccomp denies it.
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
os.makedirs("/tmp/new/old")
report("pivot_root(/tmp/new, /tmp/new/old)", *sys_call(155, b"/tmp/new", b"/tmp/new/old"))
report("pivot_root(., .)", *sys_call(155, b".", b"."))

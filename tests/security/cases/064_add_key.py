# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: add_key(2) and request_key(2) into the user keyring (persisting data in the kernel beyond the sandbox, shared by the host uid); seccomp denies both.
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
report("add_key(user)", *sys_call(248, b"user", b"e2beval-probe", b"secret", 6, -4))
report("request_key(user)", *sys_call(249, b"user", b"e2beval-probe", 0, 0))

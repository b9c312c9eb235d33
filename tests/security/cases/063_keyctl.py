# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: the kernel keyring (keyctl): joining a session keyring and reading the user keyring; keyrings are keyed by host uid and have had many CVEs; seccomp denies keyctl.
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
report("keyctl(KEYCTL_JOIN_SESSION_KEYRING)", *sys_call(250, 1, 0))
report("keyctl(KEYCTL_GET_KEYRING_ID, user keyring)", *sys_call(250, 0, -4, 0))

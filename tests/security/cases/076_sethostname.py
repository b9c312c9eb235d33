# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: sethostname/setdomainname (the UTS namespace is the sandbox own, but the program has no CAP_SYS_ADMIN); seccomp denies both.
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
report("sethostname(pwned)", *sys_call(170, b"pwned", 5))
report("setdomainname(pwned)", *sys_call(171, b"pwned", 5))
print(f"INFO hostname still {os.uname().nodename}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: chroot(2) (with a leftover cwd outside it, the classic chroot escape) ; needs CAP_SYS_CHROOT; seccomp denies chroot.
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
os.mkdir("/tmp/jail")
report("chroot(/tmp/jail)", *sys_call(161, b"/tmp/jail"))
report("chroot(/proc/1/root)", *sys_call(161, b"/proc/1/root"))

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: mount(2) of a tmpfs, a remount of / read-write, and a bind of /proc over the workspace; need CAP_SYS_ADMIN (and seccomp denies mount).
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
os.mkdir("/tmp/m")
report("mount tmpfs", *sys_call(165, b"none", b"/tmp/m", b"tmpfs", 0, 0))
report("remount / rw", *sys_call(165, b"none", b"/", 0, 0x20, 0))  # MS_REMOUNT
report("bind /proc", *sys_call(165, b"/proc", b"/tmp/m", 0, 0x1000, 0))  # MS_BIND
report("mount proc", *sys_call(165, b"proc", b"/tmp/m", b"proc", 0, 0))
report("umount2 /proc", *sys_call(166, b"/proc", 2))  # MNT_DETACH

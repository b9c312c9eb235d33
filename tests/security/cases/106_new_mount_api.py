# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: the new mount API (fsopen tmpfs/proc, open_tree clone of /, mount_setattr to make a bind writable) used by the sandbox itself; needs CAP_SYS_ADMIN and seccomp denies all of it.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(name, nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *args)
    print(("LEAKED" if r >= 0 else "BLOCKED") + f" {name} -> {r} errno {ctypes.get_errno()}")
call("fsopen(tmpfs)", 430, b"tmpfs", 0)
call("fsopen(proc)", 430, b"proc", 0)
call("open_tree(/, OPEN_TREE_CLONE|AT_RECURSIVE)", 428, ctypes.c_long(-100), b"/", ctypes.c_long(1 | 0x8000))
attr = (ctypes.c_uint64 * 4)(0, 1, 0, 0)  # attr_clr = MOUNT_ATTR_RDONLY
call("mount_setattr(/usr, clear RDONLY)", 442, ctypes.c_long(-100), b"/usr", ctypes.c_long(0), attr, ctypes.c_long(32))
call("fspick(/usr)", 433, ctypes.c_long(-100), b"/usr", ctypes.c_long(0))

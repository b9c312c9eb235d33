# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: personality(ADDR_NO_RANDOMIZE = 0x0040000) disables ASLR for the next exec (helps exploits); seccomp allows only the query personality(0xffffffff).
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
report("personality(ADDR_NO_RANDOMIZE)", *sys_call(135, 0x0040000))
report("personality(READ_IMPLIES_EXEC)", *sys_call(135, 0x0400000))
current, err = sys_call(135, 0xffffffff)
print(f"INFO personality now {current:#x}")

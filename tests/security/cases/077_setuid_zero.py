# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: setuid(0), setresuid(0,0,0), setgid(0), setgroups([0]); uid 0 is not mapped in the user namespace and the program has no CAP_SETUID/CAP_SETGID.
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
report("setuid(0)", *sys_call(105, 0))
report("setresuid(0,0,0)", *sys_call(117, 0, 0, 0))
report("setgid(0)", *sys_call(106, 0))
groups = (ctypes.c_uint * 1)(0)
report("setgroups([0])", *sys_call(116, 1, groups))
sys_call(122, 0)  # setfsuid never fails; it returns the previous value
fsuid = sys_call(122, 0xffffffff)[0]
print(("LEAKED" if fsuid == 0 else "BLOCKED") + f" setfsuid(0): fsuid is {fsuid}")
print(f"INFO ids {os.getresuid()} {os.getresgid()} groups {os.getgroups()}")

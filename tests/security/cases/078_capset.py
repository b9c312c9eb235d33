# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: capset(2) to raise every capability in the permitted/effective/inheritable sets; capabilities were dropped and cannot be regained (EPERM).
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
class Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
class Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]
header = Header(0x20080522, 0)
data = (Data * 2)(Data(0xffffffff, 0xffffffff, 0xffffffff), Data(0xffffffff, 0xffffffff, 0xffffffff))
report("capset(all)", *sys_call(126, ctypes.byref(header), data))
data = (Data * 2)(Data(1 << 21, 1 << 21, 0), Data(0, 0, 0))  # CAP_SYS_ADMIN only
report("capset(CAP_SYS_ADMIN)", *sys_call(126, ctypes.byref(header), data))
import re
print("INFO " + " ".join(re.findall(r"^Cap\w+:\s+\w+$", open("/proc/self/status").read(), re.M)))

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: process_vm_readv/writev on pid 1 (the init, a copy of the host process with its secrets in memory); non-dumpable init and seccomp must refuse.
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
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
local = ctypes.create_string_buffer(64)
liov = iovec(ctypes.addressof(local), 64)
riov = iovec(0x400000, 64)
report("process_vm_readv(1)", *sys_call(310, 1, ctypes.byref(liov), 1, ctypes.byref(riov), 1, 0))
report("process_vm_writev(1)", *sys_call(311, 1, ctypes.byref(liov), 1, ctypes.byref(riov), 1, 0))

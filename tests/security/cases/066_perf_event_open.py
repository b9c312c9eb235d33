# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: perf_event_open(2) on the program itself (user-space counting is allowed at perf_event_paranoid 2; perf has had many privilege-escalation bugs); seccomp denies it.
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
import struct
attr = bytearray(128)
struct.pack_into("II", attr, 0, 1, 128)   # PERF_TYPE_SOFTWARE, size
struct.pack_into("Q", attr, 8, 0)         # PERF_COUNT_SW_CPU_CLOCK
struct.pack_into("Q", attr, 40, (1 << 0) | (1 << 5) | (1 << 6))  # disabled, exclude_kernel, exclude_hv
buf = ctypes.create_string_buffer(bytes(attr))
report("perf_event_open(self, sw cpu-clock)", *sys_call(298, buf, 0, -1, -1, 0))

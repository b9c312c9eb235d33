# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: sets the system clock (settimeofday, clock_settime, adjtimex) — the clock is host-global and not namespaced; needs CAP_SYS_TIME in the initial namespace and seccomp denies the calls.
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]
now = Timespec(int(time.time()), 0)
r = libc.clock_settime(0, ctypes.byref(now))
print(("LEAKED" if r == 0 else "BLOCKED") + f" clock_settime(CLOCK_REALTIME) errno {ctypes.get_errno()}")
class Timeval(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("usec", ctypes.c_long)]
r = libc.settimeofday(ctypes.byref(Timeval(int(time.time()), 0)), None)
print(("LEAKED" if r == 0 else "BLOCKED") + f" settimeofday errno {ctypes.get_errno()}")

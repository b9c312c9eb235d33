# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: reads the kernel log (host addresses, other tenants' messages) with syslog(2)/klogctl and clears it; dmesg_restrict / CAP_SYSLOG and seccomp must refuse.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(4096)
for action, name in [(3, "SYSLOG_ACTION_READ_ALL"), (10, "SYSLOG_ACTION_SIZE_BUFFER"), (5, "SYSLOG_ACTION_CLEAR")]:
    r = libc.klogctl(action, buf, 4096)
    print(("LEAKED" if r >= 0 else "BLOCKED") + f" klogctl({name}) -> {r} errno {ctypes.get_errno()}")

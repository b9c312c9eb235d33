# expect-outcome: ok
# expect-stdout: ^BLOCKED NoNewPrivs 1$
# forbid-stdout: LEAKED
# why: NoNewPrivs must be 1 (setuid/file capabilities never raise privileges on exec, and it is required for an unprivileged seccomp filter), and it cannot be unset.
import ctypes, re
status = open("/proc/self/status").read()
value = re.search(r"^NoNewPrivs:\s+(\d)$", status, re.M).group(1)
print(("BLOCKED" if value == "1" else "LEAKED") + f" NoNewPrivs {value}")
libc = ctypes.CDLL(None, use_errno=True)
r = libc.prctl(38, 0, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS 0
print(f"INFO prctl(PR_SET_NO_NEW_PRIVS, 0) -> {r} (the kernel refuses clearing it)")
print(("LEAKED" if libc.prctl(39, 0, 0, 0, 0) == 0 else "BLOCKED") + " PR_GET_NO_NEW_PRIVS after the attempt")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: enumerates /proc for other processes (the host's, e.g. the test runner whose pid is passed as HOST_PID); the new pid namespace must show only the sandbox's own (init = 1, program = 2), and the init, a fork of the host process, must not expose the host process's argv through /proc/1/cmdline (docs: "unreadable to the code").
import os
mine = os.getpid()
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
print(f"INFO pids visible: {pids}")
if any(p > 100 for p in pids) or len(pids) > 4:
    print(f"LEAKED foreign pids visible {pids}")
host_pid = os.environ["HOST_PID"]
for f in ["cmdline", "environ", "status"]:
    try:
        data = open(f"/proc/{host_pid}/{f}", "rb").read()
    except OSError as e:
        print(f"BLOCKED /proc/{host_pid}/{f}: {e.errno}")
    else:
        print(f"LEAKED /proc/{host_pid}/{f}: {data[:60]!r}")
for p in pids:
    if p == mine:
        continue
    try:
        cmd = open(f"/proc/{p}/cmdline", "rb").read()
    except OSError as e:
        print(f"BLOCKED cmdline of {p}: {e.errno}")
        continue
    if b"pytest" in cmd or b"e2beval" in cmd or (p == 1 and cmd.strip(b"\0")):
        print(f"LEAKED cmdline of {p}: {cmd[:80]!r}")
    else:
        print(f"BLOCKED cmdline of {p} is harmless ({len(cmd)} bytes)")

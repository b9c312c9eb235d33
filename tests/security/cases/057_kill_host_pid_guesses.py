# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"wall_time_s": 5}
# why: probes host pids (the runner's HOST_PID, getppid, a range of guesses) with signal 0 and SIGCONT; outside the pid namespace they must be unreachable (ESRCH), and getppid must be the sandbox init.
import os, signal
host_pid = int(os.environ["HOST_PID"])
own = {int(p) for p in os.listdir("/proc") if p.isdigit()}
# A warm execution's program is itself pid 1 of its namespace: then /proc/1 is its own process, not an init copied from the host. Its parent is outside the namespace, so getppid() is 0.
expected_parent = 0 if os.getpid() == 1 else 1
print(("BLOCKED" if os.getppid() == expected_parent else "LEAKED") + f" getppid() = {os.getppid()}")
reachable = []
for pid in [host_pid, host_pid + 1, host_pid - 1] + list(range(2, 5000)):
    if pid in own:
        continue
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        continue
    except PermissionError:
        reachable.append(pid)  # exists outside: a leak of its existence
        continue
    reachable.append(pid)
try:
    os.kill(host_pid, signal.SIGCONT)
    reachable.append(("SIGCONT", host_pid))
except OSError:
    pass
print(("LEAKED" if reachable else "BLOCKED") + f" host pids reachable: {reachable[:10]}")

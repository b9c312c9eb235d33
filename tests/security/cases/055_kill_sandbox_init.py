# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"wall_time_s": 5}
# why: kills or stops the sandbox's init (pid 1), hoping to break the supervision (stop reaping, orphan the tree); a pid-namespace init ignores signals from inside its namespace that it has no handler for, SIGKILL and SIGSTOP included.
import os, signal, time
results = []
for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM, signal.SIGSEGV, signal.SIGINT):
    try:
        os.kill(1, sig)
        results.append(f"{sig.name}:sent")
    except OSError as e:
        results.append(f"{sig.name}:{e.errno}")
time.sleep(0.2)
state = open("/proc/1/stat").read().split(") ")[1].split()[0]
alive = os.path.exists("/proc/1") and state not in ("T", "Z", "X")
print(("BLOCKED" if alive else "LEAKED") + f" init state {state} after {results}")

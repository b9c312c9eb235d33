# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"wall_time_s": 5}
# why: kills or stops the sandbox's init (pid 1), hoping to break the supervision (stop reaping, orphan the tree); a pid-namespace init ignores signals from inside its namespace that it has no handler for, SIGKILL and SIGSTOP included.
import os, signal, time
# A warm execution's program is itself pid 1 of its namespace: then /proc/1 is its own process, not an init copied from the host.
if os.getpid() == 1:
    print("BLOCKED pid 1 is this program itself (warm): the supervision is outside its pid namespace")
    raise SystemExit(0)
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

# expect-outcome: ok|pids_limit|exit_nonzero
# forbid-stdout: LEAKED
# limits: {"max_processes": 32, "wall_time_s": 5}
# why: a classic exponential fork bomb (bounded to 2 s so it can end by itself); RLIMIT_NPROC (and the pids cgroup) must cap it at max_processes; the host must stay responsive and nothing survives.
import os, time
original = os.getpid()
deadline = time.monotonic() + 2
failed = 0
children = []
while time.monotonic() < deadline:
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        time.sleep(0.01)
        continue
    if pid == 0:
        children = []
        continue
    children.append(pid)
for pid in children:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
if os.getpid() == original:
    print(f"BLOCKED fork bomb contained: {failed} forks of the original process failed")
os._exit(0)

# expect-outcome: cpu_limit
# forbid-stdout: LEAKED
# limits: {"cpu_time_s": 1, "wall_time_s": 10, "max_processes": 32}
# why: spreads cpu over 4 children of 0.8 s each (each under a per-process RLIMIT_CPU of 1 s); only accounting for the whole tree (cgroup) stops the 3.2 s total.
import os, time
children = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        end = time.process_time() + 0.8
        while time.process_time() < end:
            pass
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
t = os.times()
print(f"LEAKED the tree used {t.children_user + t.children_system:.2f} s of cpu with cpu_time_s 1")

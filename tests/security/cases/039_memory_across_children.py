# expect-outcome: ok|memory_limit
# forbid-stdout: LEAKED
# limits: {"memory_mb": 128, "wall_time_s": 15, "max_processes": 32}
# why: splits a memory bomb across 6 child processes of 100 MiB each (each under a per-process RLIMIT_AS of 128 MiB): only a memory cgroup for the whole tree stops the total from exceeding memory_mb.
import os, time
children = []
r, w = os.pipe()
for i in range(6):
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            block = bytearray(100 * 1024 * 1024)
            for offset in range(0, len(block), 4096):
                block[offset] = 1
            os.write(w, b"1")
            time.sleep(3)
        except MemoryError:
            pass
        os._exit(0)
    children.append(pid)
os.close(w)
for pid in children:
    os.waitpid(pid, 0)
held = len(os.read(r, 64))
total = held * 100
if total > 2 * 128:
    print(f"LEAKED {held} children held {total} MiB at once with memory_mb 128")
else:
    print(f"BLOCKED only {held} children got their 100 MiB")

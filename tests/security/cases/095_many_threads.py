# expect-outcome: ok|pids_limit
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"max_processes": 64, "wall_time_s": 10}
# why: starts 10000 threads (threads count as tasks: the same kernel resource as a fork bomb); RLIMIT_NPROC / the pids cgroup must stop thread creation near max_processes.
import threading
threading.stack_size(64 * 1024)  # small stacks, so the task limit (not address space) is what stops it
stop = threading.Event()
threads = []
try:
    for i in range(10000):
        t = threading.Thread(target=stop.wait, daemon=True)
        t.start()
        threads.append(t)
except RuntimeError as e:
    print(f"BLOCKED thread creation stopped at {len(threads)}: {e}")
else:
    print(f"LEAKED started {len(threads)} threads with max_processes 64")
stop.set()
for t in threads:
    t.join()

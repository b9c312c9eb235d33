# expect-outcome: ok|memory_limit
# forbid-stdout: LEAKED
# limits: {"memory_mb": 128, "wall_time_s": 10}
# why: maps 1 GiB anonymous memory with mmap and touches every page (bypassing Python's allocator); the mmap must fail under RLIMIT_AS (BLOCKED) or the cgroup must OOM-kill it.
import mmap
size = 1 << 30
try:
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0))
except OSError as e:
    print(f"BLOCKED mmap of 1 GiB failed: {e.errno}")
    raise SystemExit(0)
for offset in range(0, size, 4096):
    m[offset] = 1
print("LEAKED touched 1 GiB with a 128 MiB limit")

# expect-outcome: memory_limit
# limits: {"memory_mb": 128, "wall_time_s": 10}
# why: allocates and touches memory without bound; RLIMIT_AS (MemoryError) or the memory cgroup (OOM kill) must stop it at memory_mb.
chunks = []
while True:
    chunks.append(bytearray(16 * 1024 * 1024))

// expect-outcome: memory_limit
// limits: {"memory_mb": 128, "wall_time_s": 20, "cpu_time_s": 20}
// why: fills the V8 heap and then Buffers outside it; the V8 heap limit (half the memory limit), the cgroup's memory limit or, without a cgroup, RLIMIT_DATA stop it, and the outcome says memory_limit.
const objects = [];
const buffers = [];
for (let i = 0; ; i++) {
  objects.push(new Array(1e5).fill(i + 0.5));
  if (i % 4 === 0) buffers.push(Buffer.alloc(4 << 20, 1));
}

// expect-outcome: memory_limit
// limits: {"memory_mb": 128, "wall_time_s": 20, "cpu_time_s": 20}
// why: TypeScript's emitted JavaScript fills the V8 heap without bound; the V8 heap limit (half the memory limit), the memory cgroup or RLIMIT_DATA stops it, and the outcome says memory_limit.
const objects: number[][] = [];
for (let i = 0; ; i++) objects.push(new Array<number>(1e5).fill(i + 0.5));

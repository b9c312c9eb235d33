// expect-outcome: ok|pids_limit|memory_limit|exit_nonzero|timeout
// forbid-stdout: LEAKED
// limits: {"max_processes": 32, "wall_time_s": 8}
// why: spawns 500 sleeping children (a detached shell each, TOKEN in its argv) as fast as node can; RLIMIT_NPROC and the pids cgroup refuse them near max_processes (EAGAIN), and the runner finds no TOKEN process once the sandbox ends.
declare var require: any;
declare var process: any;
const { spawn } = require("child_process");
let started = 0;
let failed = 0;
for (let i = 0; i < 500; i++) {
  try {
    const child = spawn("/bin/sh", ["-c", "sleep 30", process.env.TOKEN], { detached: true, stdio: "ignore" });
    child.on("error", () => { failed++; });
    child.unref();
    started++;
  } catch (error) {
    failed++;
  }
}
setTimeout(() => {
  console.log(`BLOCKED spawned ${started}, refused ${failed} (capped by max_processes)`);
  process.exit(0);
}, 1000);

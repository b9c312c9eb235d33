// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: process.kill(-1, 'SIGKILL') signals every process the caller may signal; in the sandbox's pid namespace that is its own children only (not init, not the host). Then it tries the runner's host pid, which does not exist in the namespace.
const { spawn } = require("child_process");
const child = spawn("/bin/sleep", ["30"]);
child.on("exit", (code, signal) => {
  console.log(`INFO own child ended by ${signal}`);
  try {
    process.kill(Number(process.env.HOST_PID), "SIGKILL");
    console.log(`LEAKED signalled host pid ${process.env.HOST_PID}`);
  } catch (error) {
    console.log(`BLOCKED kill host pid ${process.env.HOST_PID}: ${error.code}`);
  }
  console.log("BLOCKED kill(-1) only reached the sandbox (the runner checks the host)");
});
setTimeout(() => {
  try {
    process.kill(-1, "SIGKILL");
  } catch (error) {
    console.log(`INFO kill(-1) failed: ${error.code}`);
  }
}, 200);

// expect-outcome: ok
// forbid-stdout: LEAKED
// why: spawns a detached child in its own session (setsid) carrying TOKEN in its argv, unrefs it and exits; the pid namespace dies with the program, so the runner finds no process with TOKEN on the host.
const { spawn } = require("child_process");
const child = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setTimeout(() => {}, 60000)", process.env.TOKEN],
                    { detached: true, stdio: "ignore" });
child.unref();
console.log(`INFO started detached child ${child.pid}`);

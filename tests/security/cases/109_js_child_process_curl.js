// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: child_process runs curl, wget and a shell against the runner's listener and host files; the children share the sandbox (no network namespace route, seccomp denies AF_INET sockets, no host files), so each attempt fails.
const { spawnSync } = require("child_process");
const port = process.env.HOST_PORT;
const attempts = [
  ["curl", ["-sS", "-m", "2", `http://127.0.0.1:${port}/`]],
  ["wget", ["-q", "-t", "1", "-T", "2", "-O", "-", `http://127.0.0.1:${port}/`]],
  ["/bin/sh", ["-c", "cat /etc/shadow"]],
  ["/bin/sh", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`]],
  ["/bin/bash", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`]],
];
for (const [command, args] of attempts) {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 3000 });
  const shown = `${command} ${args.join(" ").slice(0, 60)}`;
  if (result.error) console.log(`BLOCKED ${shown}: ${result.error.code}`);
  else if (result.status === 0) console.log(`LEAKED ${shown}: ${String(result.stdout).slice(0, 60)}`);
  else console.log(`BLOCKED ${shown}: status ${result.status} ${String(result.stderr).trim().slice(0, 60)}`);
}

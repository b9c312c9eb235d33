// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: TypeScript compiled by tsc, then run by node: child_process runs a shell that reads host secrets and tries bash's /dev/tcp to the runner's listener; the child shares the sandbox's namespaces and seccomp filter, so it finds and reaches nothing.
declare var require: any;
declare var process: any;
const { spawnSync } = require("child_process");
const script: string =
  `cat /etc/shadow '${process.env.CANARY_PATH}' 2>/dev/null; tr '\\0' '\\n' </proc/1/environ 2>/dev/null | grep E2B_API_KEY; ` +
  `(echo x >/dev/tcp/127.0.0.1/${process.env.HOST_PORT}) 2>/dev/null && echo connected`;
const result = spawnSync("/bin/bash", ["-c", script], { encoding: "utf8" });
if (result.error) {
  console.log(`BLOCKED the shell did not start: ${result.error.message}`);
} else if (result.stdout.trim() === "") {
  console.log("BLOCKED the shell found no host secret and no network");
} else {
  for (const line of result.stdout.trim().split("\n")) console.log(`LEAKED ${line}`);
}

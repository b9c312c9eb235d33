// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: looks for the host's secrets in process.env, NODE_OPTIONS, /proc/self/environ and the parent's environment; the sandbox's environment is built from scratch (nothing of the host's, including E2B_API_KEY, reaches the code).
const fs = require("fs");
const keys = Object.keys(process.env);
console.log((process.env.E2B_API_KEY ? "LEAKED" : "BLOCKED") + " E2B_API_KEY is not set");
console.log((process.env.NODE_OPTIONS ? "LEAKED" : "BLOCKED") + " NODE_OPTIONS is not set");
const unexpected = keys.filter((k) => !/^(PATH|HOME|TMPDIR|LANG|LC_ALL|USER|HOSTNAME|CANARY_PATH|HOST_PORT|HOST_UDP_PORT|HOST_ABSTRACT|HOST_PID|TOKEN|INTERPRETER_PREFIXES)$/.test(k));
console.log((unexpected.length ? "LEAKED" : "BLOCKED") + ` no host variables: ${unexpected.join(",")}`);
for (const path of ["/proc/self/environ", `/proc/${process.ppid}/environ`]) {
  try {
    const text = fs.readFileSync(path, "latin1");
    console.log((text.includes("E2B_API_KEY") ? "LEAKED" : "BLOCKED") + ` ${path} has no E2B_API_KEY`);
  } catch (error) {
    console.log(`BLOCKED ${path}: ${error.code}`);
  }
}

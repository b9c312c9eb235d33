// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: JavaScript reads host secrets with fs: /etc/shadow, /root/.ssh, the project directory, the runner's /tmp canary, /proc/1/environ and cmdline; the minimal root holds none of them, pid 1 (e2beval's init) is non-dumpable and has wiped its command line.
const fs = require("fs");
const paths = ["/etc/shadow", "/etc/sudoers", "/root/.ssh/id_rsa", "/root/.bash_history", "/work/main/README.md",
               "/work/shared/DESIGN.md", process.env.CANARY_PATH, "/proc/1/environ", "/proc/1/cmdline"];
for (const path of paths) {
  try {
    // init wipes its command line: readable NUL bytes show nothing of the host.
    const data = fs.readFileSync(path);
    const text = data.toString("latin1").replace(/\0/g, "");
    console.log(text.length === 0 ? `BLOCKED ${path}: ${data.length} NUL bytes` : `LEAKED ${path}: ${JSON.stringify(text.slice(0, 60))}`);
  } catch (error) {
    console.log(`BLOCKED ${path}: ${error.code}`);
  }
}
const tmp = fs.readdirSync("/tmp");
console.log((tmp.some((name) => process.env.CANARY_PATH.endsWith(name)) ? "LEAKED" : "BLOCKED") + ` /tmp lists ${tmp.slice(0, 5)}`);

// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: fs.writeFileSync into /usr, /etc, /, the node install's own directory and /dev, plus overwriting the node binary; everything but the workspace is a read-only bind or the read-only tmpfs root.
const fs = require("fs");
const path = require("path");
const token = process.env.TOKEN;
const targets = [`/usr/${token}-js`, `/usr/bin/${token}-js`, `/etc/${token}-js`, `/${token}-js`, `/dev/${token}-js`,
                 path.join(path.dirname(process.execPath), `${token}-js`)];
for (const target of targets) {
  try {
    fs.writeFileSync(target, "x");
    console.log(`LEAKED wrote ${target}`);
  } catch (error) {
    console.log(`BLOCKED write ${target}: ${error.code}`);
  }
}
for (const [name, action] of [["open node binary for writing", () => fs.openSync(process.execPath, "r+")],
                              ["chmod /usr/bin/env", () => fs.chmodSync("/usr/bin/env", 0o777)],
                              ["unlink /usr/bin/env", () => fs.unlinkSync("/usr/bin/env")]]) {
  try {
    action();
    console.log(`LEAKED ${name}`);
  } catch (error) {
    console.log(`BLOCKED ${name}: ${error.code}`);
  }
}
fs.writeFileSync("inside.txt", "fine");
console.log(`INFO the workspace is writable: ${fs.readFileSync("inside.txt", "utf8")}`);

// The native bindings promptfoo needs on this machine, one `name@version` per line, from the lock file given as
// the argument: the platform's package of libsql (promptfoo's database) and of esbuild. scripts/setup.sh installs
// promptfoo without its optional packages (544 of the lock's 931: other providers' SDKs, a 320 MB codex binary,
// playwright...: npm spent 94 CPU seconds unpacking them) and names these, which npm would otherwise omit with them.
const lock = require(require("path").resolve(process.argv[2]));
const glibc = Boolean(process.report.getReport().header.glibcVersionRuntime);
const wanted = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  const name = path.slice("node_modules/".length);
  if (path !== `node_modules/${name}` || !/^@(libsql|esbuild)\//.test(name)) continue;
  if (!entry.os && !entry.cpu) continue;  // not a platform's package
  if ((entry.os && !entry.os.includes(process.platform)) || (entry.cpu && !entry.cpu.includes(process.arch))) continue;
  if (/musl/.test(name) === glibc) continue;  // libsql names its C library in the package's name
  wanted.push(`${name}@${entry.version}`);
}
if (wanted.length < 2) {
  console.error(`native-bindings.cjs: no libsql or esbuild package for ${process.platform}-${process.arch} in the lock`);
  process.exit(1);
}
console.log(wanted.join("\n"));

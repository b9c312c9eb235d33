# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: creates files and device nodes in /dev (the read-only root's /dev), and mknod of /dev/mem-like devices in the workspace; nodev and missing CAP_MKNOD must stop it.
import os, stat
token = os.environ["TOKEN"]
try:
    open(f"/dev/{token}-dev", "w").write("x")
except OSError as e:
    print(f"BLOCKED create in /dev: {e.errno}")
else:
    print("LEAKED created a file in /dev")
for path, dev in [(f"/tmp/{token}-mem", os.makedev(1, 1)), (f"/tmp/{token}-sda", os.makedev(8, 0)), (f"/dev/{token}-kmsg", os.makedev(1, 11))]:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, dev)
    except OSError as e:
        print(f"BLOCKED mknod {path}: {e.errno}")
        continue
    try:
        with open(path, "rb") as f:
            f.read(16)
    except OSError as e:
        print(f"BLOCKED mknod succeeded but open {path} failed: {e.errno}")
    else:
        print(f"LEAKED read device {path}")

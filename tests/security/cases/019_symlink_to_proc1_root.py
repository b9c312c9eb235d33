# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: a symlink to /proc/1/root (the init's root, which briefly was the host's) and to /proc/1/cwd; non-dumpable init denies the magic link.
import os
os.symlink("/proc/1/root", "/tmp/r1")
os.symlink("/proc/1/cwd", "/tmp/c1")
for path in ["/tmp/r1/etc/shadow", "/tmp/r1/work/main/pyproject.toml", "/tmp/c1/main.py", "/tmp/r1"]:
    try:
        if path == "/tmp/r1":
            data = os.listdir(path)
        else:
            data = open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.errno}")
    else:
        print(f"LEAKED {path}: {str(data)[:60]}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: a symlink to /proc/1/root (the init's root, which briefly was the host's) and to /proc/1/cwd; non-dumpable init denies the magic link.
import os
# A warm execution's program is itself pid 1 of its namespace: then /proc/1 is its own process, not an init copied from the host.
OWN = os.getpid() == 1
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
        own_state = OWN and path in ("/tmp/c1/main.py", "/tmp/r1")  # our own code and root
        print(("INFO own" if own_state else "LEAKED") + f" {path}: {str(data)[:60]}")

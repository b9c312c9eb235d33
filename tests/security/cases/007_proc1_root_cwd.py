# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: /proc/1/root, /proc/1/cwd and /proc/1/fd of the sandbox init could point into the host's filesystem (the old root before pivot_root); non-dumpable init and the detached old root must stop it.
import os
# A warm execution's program is itself pid 1 of its namespace: then /proc/1 is its own process, not an init copied from the host.
OWN = os.getpid() == 1
targets = ["/proc/1/root/etc/shadow", "/proc/1/root/work/main/pyproject.toml", "/proc/1/root/work/shared/DESIGN.md",
           "/proc/1/cwd/../../etc/shadow", "/proc/1/root/proc/1/environ"]
for path in targets:
    try:
        data = open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        own_state = OWN and path == "/proc/1/root/proc/1/environ" and b"E2B_API_KEY" not in data
        print(("BLOCKED" if own_state else "LEAKED") + f" {path}: {len(data)} bytes")
for d in ["/proc/1/root", "/proc/1/cwd", "/proc/1/fd"]:
    try:
        entries = os.listdir(d)
    except OSError as e:
        print(f"BLOCKED listdir {d}: {e.errno}")
    else:
        print(("INFO own" if OWN else "LEAKED") + f" listdir {d}: {entries[:8]}")
    try:
        print(f"INFO readlink {d}: {os.readlink(d)}")
    except OSError as e:
        print(f"BLOCKED readlink {d}: {e.errno}")

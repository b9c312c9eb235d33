# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: /proc/self/root and /proc/self/cwd/../.. as escape paths; both resolve to the sandbox's own root.
import os
for path in ["/proc/self/root/etc/shadow", "/proc/self/root/work/main/pyproject.toml", "/proc/self/cwd/../../etc/shadow",
             "/proc/self/cwd/../../work/shared/DESIGN.md", "/proc/self/root/proc/1/root/etc/shadow",
             "/proc/thread-self/root/etc/shadow", "/dev/fd/../root/etc/shadow"]:
    try:
        data = open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.errno}")
    else:
        print(f"LEAKED {path}: {len(data)} bytes")
print(("BLOCKED" if os.readlink("/proc/self/root") == "/" else "LEAKED") + f" /proc/self/root -> {os.readlink('/proc/self/root')}")

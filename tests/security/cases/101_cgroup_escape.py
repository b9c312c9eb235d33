# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: leaves the sandbox's cgroup (and its limits) by writing its pid to a parent cgroup.procs, or mounts cgroupfs to do so; there is no /sys, the cgroup namespace hides the path, and mount needs privileges.
import ctypes, os
print(f"INFO /proc/self/cgroup: {open('/proc/self/cgroup').read().strip()!r}")
for path in ["/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/memory/cgroup.procs", "/sys/fs/cgroup/unified/cgroup.procs",
             "/sys/fs/cgroup/pids/tasks"]:
    try:
        with open(path, "w") as f:
            f.write(str(os.getpid()))
    except OSError as e:
        print(f"BLOCKED {path}: {e.errno}")
    else:
        print(f"LEAKED moved into {path}")
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("/tmp/cg", exist_ok=True)
for fstype in (b"cgroup2", b"cgroup"):
    r = libc.mount(b"none", b"/tmp/cg", fstype, 0, b"memory" if fstype == b"cgroup" else None)
    print(("LEAKED" if r == 0 else "BLOCKED") + f" mount {fstype.decode()}: errno {ctypes.get_errno()}")

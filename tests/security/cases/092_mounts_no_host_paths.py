# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: /proc/self/mountinfo lists every mount of the sandbox; host filesystems may appear only as the documented read-only binds (/usr, /bin, /sbin, /lib*, /etc/ld.so.cache, /etc/localtime, /etc/alternatives (links to system binaries), the interpreter prefix, the five devices), never /work, /root/.ssh, /home, /var, host /tmp, and every bind must be ro,nosuid,nodev.
import os, sys
allowed_roots = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives",
                 "/null", "/zero", "/full", "/random", "/urandom"}
allowed_roots |= {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
# the runner's interpreter prefixes (its virtualenv) are bound by design
allowed_roots |= set(filter(None, os.environ.get("INTERPRETER_PREFIXES", "").split(":")))
bad = []
for line in open("/proc/self/mountinfo"):
    fields = line.split()
    root, mount_point, options = fields[3], fields[4], fields[5]
    fstype = fields[fields.index("-") + 1]
    if fstype in ("tmpfs", "proc"):
        if mount_point not in ("/", "/tmp", "/dev/shm", "/proc") and not mount_point.startswith("/proc/"):
            bad.append(f"unexpected {fstype} at {mount_point}")
        continue
    if root not in allowed_roots:
        bad.append(f"host path {root} at {mount_point}")
    if fstype != "devtmpfs" and not ("ro" in options.split(",") and "nosuid" in options and "nodev" in options):
        bad.append(f"{mount_point} is not ro,nosuid,nodev: {options}")
    for secret in ("/work/main/src", "/work/shared", "/root/.ssh", "/home", "/var", "/etc/shadow"):
        if root == secret or mount_point == secret:
            bad.append(f"secret path {secret} mounted")
mounts = open("/proc/mounts").read()
print("INFO " + " | ".join(l.split()[1] for l in mounts.splitlines()))
print(("LEAKED " + "; ".join(bad)) if bad else "BLOCKED only the documented host paths are mounted")

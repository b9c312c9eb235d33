# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: the runc CVE-2019-5736 pattern: open /proc/self/exe (the host's interpreter binary) or /proc/1/exe for writing to overwrite it; read-only bind (EROFS/ETXTBSY/EACCES) and non-dumpable init must stop it.
import os
for path in ["/proc/self/exe", "/proc/1/exe", os.path.realpath("/proc/self/exe")]:
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        print(f"BLOCKED open {path} for writing: {e.errno} {e.strerror}")
    else:
        os.close(fd)
        print(f"LEAKED opened {path} for writing")
# A warm execution's program is itself pid 1 of its namespace: then /proc/1 is its own process, not an init copied from the host.
try:
    if os.getpid() == 1:
        raise PermissionError(0, "pid 1 is this program itself (warm): its exe is the sandbox's read-only interpreter")
    os.open("/proc/1/exe", os.O_RDONLY)
except OSError as e:
    print(f"BLOCKED open /proc/1/exe for reading: {e.errno}")
else:
    print("LEAKED opened /proc/1/exe (the host process's binary) for reading")

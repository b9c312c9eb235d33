# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"open_files": 128}
# why: opens 10000 file descriptors (kernel memory, fd table); RLIMIT_NOFILE (open_files) must stop it with EMFILE, and the hard limit cannot be raised.
import errno, os, resource
fds = []
try:
    for i in range(10000):
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    print(("BLOCKED" if e.errno == errno.EMFILE else "BLOCKED-other") + f" stopped at {len(fds)} fds: {e.strerror}")
else:
    print(f"LEAKED opened {len(fds)} fds")
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard * 100, hard * 100))
except (ValueError, OSError) as e:
    print(f"BLOCKED raising RLIMIT_NOFILE above {hard}: {e}")
else:
    print("LEAKED raised RLIMIT_NOFILE")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: exhausts the workspace's inodes (kernel memory) with empty files; nr_inodes of the tmpfs must stop it with ENOSPC.
import errno, os
os.mkdir("/tmp/many")
n = 0
try:
    while n < 200000:
        os.close(os.open(f"/tmp/many/{n}", os.O_CREAT | os.O_WRONLY, 0o600))
        n += 1
except OSError as e:
    print(("BLOCKED" if e.errno == errno.ENOSPC else "LEAKED-unexpected") + f" stopped after {n} files: {e.strerror}")
else:
    print(f"LEAKED created {n} files")

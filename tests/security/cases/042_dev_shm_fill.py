# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: fills /dev/shm (usually the host's shared tmpfs, unbounded by the workspace); the sandbox's own small /dev/shm must stop it with ENOSPC.
import errno, os
written = 0
chunk = b"x" * (1 << 20)
try:
    i = 0
    while written < (512 << 20):
        with open(f"/dev/shm/fill{i}", "wb", buffering=0) as f:
            for _ in range(8):
                written += f.write(chunk)
        i += 1
except OSError as e:
    print(("BLOCKED" if e.errno == errno.ENOSPC else "LEAKED-unexpected") + f" /dev/shm stopped after {written >> 20} MiB: {e.strerror}")
else:
    print(f"LEAKED wrote {written >> 20} MiB to /dev/shm")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"workspace_mb": 32, "file_size_bytes": 67108864}
# why: fills the workspace tmpfs (host RAM) until the write fails; the tmpfs size (workspace_mb) must stop it with ENOSPC.
import errno, os
written = 0
chunk = b"x" * (1 << 20)
try:
    with open("/tmp/fill.bin", "wb", buffering=0) as f:
        while written < (512 << 20):
            written += f.write(chunk)
except OSError as e:
    print(("BLOCKED" if e.errno == errno.ENOSPC else "LEAKED-unexpected") + f" stopped after {written >> 20} MiB: {e.errno} {e.strerror}")
else:
    print(f"LEAKED wrote {written >> 20} MiB to /tmp")

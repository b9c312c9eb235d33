# expect-outcome: ok|file_limit
# forbid-stdout: LEAKED
# limits: {"file_size_bytes": 1048576}
# why: writes a 4 MiB file with file_size_bytes 1 MiB; RLIMIT_FSIZE must stop the write at 1 MiB (EFBIG → BLOCKED, or SIGXFSZ → file_limit).
import os
path = "/tmp/big.bin"
try:
    with open(path, "wb", buffering=0) as f:
        for _ in range(4):
            f.write(b"x" * (1 << 20))
except OSError as e:
    print(f"BLOCKED write stopped at {os.path.getsize(path)} bytes: {e.strerror}")
size = os.path.getsize(path)
if size > 1048576:
    print(f"LEAKED wrote {size} bytes")
else:
    print(f"BLOCKED file is {size} bytes")

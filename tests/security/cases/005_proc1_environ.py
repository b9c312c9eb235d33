# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: pid 1 of the sandbox is a copy of the host process (its environ holds E2B_API_KEY); it is non-dumpable so /proc/1/environ, cmdline of the host copy and auxv must be unreadable.
import os
for f in ["environ", "auxv", "maps", "smaps", "stack", "syscall", "pagemap", "personality"]:
    path = f"/proc/1/{f}"
    try:
        data = open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        bad = b"E2B_API_KEY" in data or (f in ("environ",) and len(data) > 0) or (f in ("maps", "smaps", "auxv", "pagemap") and len(data) > 0)
        print(("LEAKED" if bad else "BLOCKED") + f" {path}: {len(data)} bytes readable {data[:60]!r}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: cold, pid 1 of the sandbox is e2beval's init, a copy of the host process (its memory and environ hold E2B_API_KEY): it is non-dumpable, so /proc/1/environ, auxv, maps and mem must be unreadable. Warm, pid 1 is the program itself, forked from the zygote: what it can read there is its own sandbox state, and must hold nothing of the host.
import os
own = os.getpid() == 1  # warm: we are pid 1
# The host's pytest process: its environment (PYTEST_CURRENT_TEST) and its modules (_pytest); not the bare word,
# which a checkout's path may hold (a worktree named pytest puts it into the sandbox's own PATH).
host_markers = [b"E2B_API_KEY", b"PYTEST_CURRENT_TEST", b"_pytest", b"/work/main/tests", os.environ.get("TOKEN", "").encode() or b"\0\0"]
for f in ["environ", "auxv", "maps", "smaps", "stack", "syscall", "pagemap", "personality", "mem"]:
    path = f"/proc/1/{f}"
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 20) if f != "mem" else b""
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
        continue
    host_data = any(marker in data for marker in host_markers)
    # Cold: anything readable from the host copy's memory map or environment is a leak.
    init_copy_readable = not own and f in ("environ", "maps", "smaps", "auxv", "pagemap") and len(data) > 0
    bad = host_data or init_copy_readable
    print(("LEAKED" if bad else "BLOCKED") + f" {path} ({'own process' if own else 'init'}): {len(data)} bytes readable, no host data")

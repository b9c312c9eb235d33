# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: reads and writes the memory of the sandbox init (a copy of the host process with its heap and secrets) via /proc/1/mem; PR_SET_DUMPABLE 0 must make it EACCES.
import os
# A warm execution's program is itself pid 1 of its namespace: then /proc/1 is its own process, not an init copied from the host.
if os.getpid() == 1:
    print("BLOCKED /proc/1 is this program itself (warm): no init copy of the host to read")
    raise SystemExit(0)
for mode in ("rb", "r+b"):
    try:
        with open("/proc/1/mem", mode) as f:
            f.seek(0x400000)
            f.read(16)
    except OSError as e:
        print(f"BLOCKED /proc/1/mem {mode}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED /proc/1/mem opened {mode}")
try:
    fd = os.open("/proc/1/mem", os.O_RDONLY)
except OSError as e:
    print(f"BLOCKED os.open /proc/1/mem: {e.errno}")
else:
    print("LEAKED os.open /proc/1/mem")

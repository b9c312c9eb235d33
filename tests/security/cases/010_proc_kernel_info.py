# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: kernel memory and addresses via /proc (kcore, kallsyms with real addresses, kmsg, kpagecount, sched_debug, timer_list): need CAP_SYS_RAWIO/CAP_SYSLOG in the initial namespace.
import os
for path in ["/proc/kcore", "/proc/kmsg", "/proc/kpagecount", "/proc/kpageflags", "/proc/sched_debug", "/proc/timer_list"]:
    try:
        with open(path, "rb") as f:
            data = f.read(64)
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED {path}: read {len(data)} bytes")
try:
    with open("/proc/kallsyms") as f:
        lines = [next(f) for _ in range(50)]
    nonzero = [l for l in lines if not l.startswith("0000000000000000")]
    print(("LEAKED" if nonzero else "BLOCKED") + f" /proc/kallsyms addresses hidden={not nonzero} {lines[0].strip()}")
except (OSError, StopIteration) as e:
    print(f"BLOCKED /proc/kallsyms: {e}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: writes to /proc/sysrq-trigger (a harmless 'h' help request, which would be logged by the host kernel) and /proc/sys/kernel/sysrq; must fail (read-only proc entries for non-root, no capabilities).
for path, data in [("/proc/sysrq-trigger", b"h"), ("/proc/sys/kernel/sysrq", b"1")]:
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED wrote {path}")

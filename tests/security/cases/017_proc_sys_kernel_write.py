# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: writes host-global kernel settings through /proc/sys (core_pattern would run a host helper as root, hostname, drop_caches, panic); proc/sys is read-only for the unprivileged user.
for path, data in [("/proc/sys/kernel/core_pattern", b"|/tmp/x"), ("/proc/sys/kernel/hostname", b"pwned"),
                   ("/proc/sys/vm/drop_caches", b"3"), ("/proc/sys/kernel/panic", b"1"),
                   ("/proc/sys/kernel/modprobe", b"/tmp/x"), ("/proc/sys/net/ipv4/ip_forward", b"1"),
                   ("/proc/self/oom_score_adj", b"-1000")]:
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED wrote {path}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"wall_time_s": 10}
# why: execve with a 64 MiB argument list and a 64 MiB environment (kernel memory for exec); the kernel caps argv+envp at a quarter of RLIMIT_STACK and each string at 128 KiB, so exec fails with E2BIG (or the allocation fails first).
import errno, subprocess, sys
for label, kwargs in [("argv", {"args": ["/bin/true"] + ["a" * 4095] * 16384}),
                      ("env", {"args": ["/bin/true"], "env": {f"V{i}": "b" * 4095 for i in range(16384)}}),
                      ("one 1 MiB string", {"args": ["/bin/true", "c" * (1 << 20)]})]:
    try:
        r = subprocess.run(**kwargs)
    except OSError as e:
        print(("BLOCKED" if e.errno == errno.E2BIG else "BLOCKED-other") + f" huge {label}: {e.errno} {e.strerror}")
    except MemoryError:
        print(f"BLOCKED huge {label}: MemoryError")
    else:
        print(f"LEAKED exec with huge {label} succeeded rc={r.returncode}")

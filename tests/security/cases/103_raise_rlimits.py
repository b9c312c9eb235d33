# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: raises every hard rlimit (core, nproc, as, cpu, fsize, nofile, memlock) to escape the limits; without CAP_SYS_RESOURCE the kernel refuses to raise a hard limit.
import resource
for name in ["RLIMIT_CORE", "RLIMIT_NPROC", "RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_MEMLOCK"]:
    res = getattr(resource, name)
    soft, hard = resource.getrlimit(res)
    if hard == resource.RLIM_INFINITY:
        print(f"INFO {name} hard limit is already unlimited")
        continue
    try:
        resource.setrlimit(res, (hard + 1 if name != "RLIMIT_CORE" else 1 << 30, hard + 1 if name != "RLIMIT_CORE" else 1 << 30))
    except (ValueError, OSError) as e:
        print(f"BLOCKED raising {name} above {hard}: {e}")
    else:
        print(f"LEAKED raised {name} above {hard}")

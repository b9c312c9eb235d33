# expect-outcome: ok
# expect-stdout: ^Seccomp:\s+2$
# why: prints the Seccomp field of /proc/self/status; it must be 2 (filter mode) once the seccomp filter is installed; without it every "seccomp denies" line in this corpus is void.
import re
status = open("/proc/self/status").read()
print(re.search(r"^Seccomp:.*$", status, re.M).group(0))
print(re.search(r"^Seccomp_filters:.*$", status, re.M).group(0) if "Seccomp_filters" in status else "Seccomp_filters: n/a")

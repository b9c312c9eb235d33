# expect-outcome: signaled
# why: crashes with SIGABRT after trying to enable core dumps (a core pattern pipe would run a host helper); RLIMIT_CORE 0 is a hard limit and the outcome must be reported as 'signaled', not mistaken for a limit or a sandbox error.
import os, resource
try:
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print("LEAKED core dumps enabled")
except (ValueError, OSError):
    print("BLOCKED core dumps stay disabled")
os.abort()

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: reads /proc/self/status: CapInh, CapPrm, CapEff, CapBnd and CapAmb must all be 0000000000000000 (capabilities inside a user namespace still open kernel attack surface).
import re
status = open("/proc/self/status").read()
for name in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]:
    value = re.search(rf"^{name}:\s+(\w+)$", status, re.M).group(1)
    print(("BLOCKED" if int(value, 16) == 0 else "LEAKED") + f" {name} {value}")

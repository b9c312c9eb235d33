# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: /sys exposes host hardware ids, firmware tables, cgroup trees and network devices; the minimal root has no /sys at all (and mounting sysfs needs privileges).
import os
for path in ["/sys/class/dmi/id/product_uuid", "/sys/firmware/acpi/tables/DSDT", "/sys/kernel/security",
             "/sys/fs/cgroup", "/sys/class/net", "/sys/kernel/debug", "/sys/devices/virtual/dmi/id/board_serial"]:
    try:
        if os.path.isdir(path):
            print(f"LEAKED {path}: dir {os.listdir(path)[:5]}")
            continue
        data = open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED {path}: {len(data)} bytes")
print(("LEAKED" if os.path.exists("/sys") else "BLOCKED") + " /sys exists=" + str(os.path.exists("/sys")))

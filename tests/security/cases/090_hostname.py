# expect-outcome: ok
# expect-stdout: ^hostname=sandbox nodename=sandbox etc=sandbox$
# why: the UTS namespace hides the host's name: gethostname, uname and /proc/sys/kernel/hostname all say 'sandbox'.
import os, socket
etc = open("/etc/hostname").read().strip() if os.path.exists("/etc/hostname") else "-"
proc = open("/proc/sys/kernel/hostname").read().strip()
print(f"hostname={socket.gethostname()} nodename={os.uname().nodename} etc={etc}")
print(f"proc={proc}")

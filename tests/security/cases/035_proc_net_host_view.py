# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: /proc/net shows the sockets of the caller's net namespace; the host's listener (HOST_PORT) and abstract socket (HOST_ABSTRACT) must not appear (host network reconnaissance).
import os
port = "%04X" % int(os.environ["HOST_PORT"])
for path in ["/proc/net/tcp", "/proc/net/tcp6", "/proc/net/udp"]:
    try:
        data = open(path).read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.errno}")
        continue
    print(("LEAKED" if ":" + port + " " in data else "BLOCKED") + f" {path}: {len(data.splitlines()) - 1} entries")
try:
    unix = open("/proc/net/unix").read()
    print(("LEAKED" if os.environ["HOST_ABSTRACT"] in unix else "BLOCKED") + f" /proc/net/unix: {len(unix.splitlines()) - 1} entries")
except OSError as e:
    print(f"BLOCKED /proc/net/unix: {e.errno}")
try:
    routes = open("/proc/net/route").read().splitlines()[1:]
    print(("LEAKED" if routes else "BLOCKED") + f" routes: {routes[:3]}")
except OSError as e:
    print(f"BLOCKED /proc/net/route: {e.errno}")

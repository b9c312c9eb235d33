# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: the old-style `ip link set lo up` via ioctl(SIOCSIFFLAGS) on any socket (AF_UNIX works for device ioctls); needs CAP_NET_ADMIN.
import fcntl, socket, struct
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
s = None
for family in (socket.AF_INET, socket.AF_UNIX):
    try:
        s = socket.socket(family, socket.SOCK_DGRAM)
        break
    except OSError as e:
        print(f"INFO socket({family!r}) failed: {e.errno}")
request = struct.pack("16sH14x", b"lo", IFF_UP)
try:
    fcntl.ioctl(s, SIOCSIFFLAGS, request)
except OSError as e:
    print(f"BLOCKED SIOCSIFFLAGS: {e.errno}")
else:
    print("LEAKED SIOCSIFFLAGS accepted")
try:
    flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH14x", b"lo", 0)))[1]
    print(("LEAKED" if flags & IFF_UP else "BLOCKED") + f" lo flags now {flags:#x}")
except OSError as e:
    print(f"BLOCKED SIOCGIFFLAGS: {e.errno}")

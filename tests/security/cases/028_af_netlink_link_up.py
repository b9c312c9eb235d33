# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: an AF_NETLINK route socket sending RTM_NEWLINK to bring lo up (the first step to any network use); needs CAP_NET_ADMIN over the net namespace; after seccomp socket(AF_NETLINK) itself fails.
import socket, struct
try:
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)  # NETLINK_ROUTE
except OSError as e:
    print(f"BLOCKED socket(AF_NETLINK): {e.errno}")
    raise SystemExit(0)
s.settimeout(1)
s.bind((0, 0))
index = socket.if_nametoindex("lo")
body = struct.pack("BBHiII", socket.AF_UNSPEC, 0, 0, index, 1, 1)  # IFF_UP set, change mask IFF_UP
header = struct.pack("IHHII", 16 + len(body), 16, 1 | 4, 1, 0)  # RTM_NEWLINK, NLM_F_REQUEST|NLM_F_ACK
s.send(header + body)
reply = s.recv(4096)
length, kind, flags, seq, pid = struct.unpack("IHHII", reply[:16])
error = struct.unpack("i", reply[16:20])[0] if kind == 2 else None
if error == 0:
    print("LEAKED RTM_NEWLINK set lo up")
else:
    print(f"BLOCKED RTM_NEWLINK answered error {error}")
# Reading interface state must not show the host's interfaces either.
names = [n for _, n in socket.if_nameindex()]
print(("BLOCKED" if names == ["lo"] else "LEAKED") + f" interfaces {names}")

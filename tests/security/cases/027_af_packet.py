# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: AF_PACKET sockets (link-layer sniffing/injection, a frequent kernel CVE source); need CAP_NET_RAW; seccomp denies the family.
import socket
for kind in (socket.SOCK_RAW, socket.SOCK_DGRAM):
    try:
        s = socket.socket(socket.AF_PACKET, kind, socket.htons(0x0003))
    except OSError as e:
        print(f"BLOCKED AF_PACKET type {kind}: {e.errno}")
    else:
        print(f"LEAKED opened AF_PACKET type {kind}")

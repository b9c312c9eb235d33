# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: raw IP and ICMP sockets (spoofing, sniffing); need CAP_NET_RAW, which the program does not have; seccomp also denies non-AF_UNIX sockets.
import socket
for name, args in [("SOCK_RAW IPPROTO_RAW", (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)),
                   ("SOCK_RAW ICMP", (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)),
                   ("SOCK_RAW TCP", (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)),
                   ("AF_INET6 SOCK_RAW", (socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6))]:
    try:
        s = socket.socket(*args)
    except OSError as e:
        print(f"BLOCKED {name}: {e.errno}")
    else:
        print(f"LEAKED opened {name}")
        s.close()

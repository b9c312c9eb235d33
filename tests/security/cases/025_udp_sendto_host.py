# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: sends a UDP datagram to a port the runner listens on at the host's 127.0.0.1 (HOST_UDP_PORT); lo is down in the sandbox's own namespace (ENETUNREACH), after seccomp socket() fails. The runner checks nothing arrived.
import os, socket
port = int(os.environ["HOST_UDP_PORT"])
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
except OSError as e:
    print(f"BLOCKED socket(AF_INET, SOCK_DGRAM): {e.errno}")
else:
    for host in ["127.0.0.1", "255.255.255.255", "224.0.0.1"]:
        try:
            if host == "255.255.255.255":
                s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            n = s.sendto(b"escape " + os.environ["TOKEN"].encode(), (host, port))
        except OSError as e:
            print(f"BLOCKED sendto {host}:{port}: {e.__class__.__name__} {e.errno}")
        else:
            print(f"LEAKED sendto {host}:{port} sent {n} bytes")

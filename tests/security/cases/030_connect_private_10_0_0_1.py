# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: connects to private addresses (10.0.0.1, 172.17.0.1 docker bridge, 169.254.169.254 cloud metadata) with a 1 s timeout; no route exists in the empty net namespace.
import socket
for host, port in [("10.0.0.1", 80), ("172.17.0.1", 2375), ("169.254.169.254", 80), ("192.168.0.1", 80)]:
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    except OSError as e:
        print(f"BLOCKED socket(AF_INET): {e.errno}")
        break
    s.settimeout(1)
    try:
        s.connect((host, port))
    except OSError as e:
        print(f"BLOCKED connect {host}:{port}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED connected to {host}:{port}")
    finally:
        s.close()

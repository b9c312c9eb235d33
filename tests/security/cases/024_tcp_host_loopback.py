# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: connects to a TCP port the test runner really listens on at the host's 127.0.0.1 (HOST_PORT); the new network namespace has its own loopback, which is down; after seccomp socket(AF_INET) itself fails. The runner checks that its listener saw no connection.
import os, socket
port = int(os.environ["HOST_PORT"])
for host in ["127.0.0.1", "localhost", "127.0.0.2"]:
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    except OSError as e:
        print(f"BLOCKED socket(AF_INET): {e.__class__.__name__} {e.errno}")
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

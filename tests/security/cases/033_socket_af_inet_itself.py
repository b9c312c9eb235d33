# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: the plain `socket.socket(socket.AF_INET)` most network code starts with; after seccomp it raises PermissionError, before that the connect to the runner's HOST_PORT fails (no route). Either is BLOCKED.
import os, socket
try:
    s = socket.socket(socket.AF_INET)
except PermissionError as e:
    print(f"BLOCKED socket(AF_INET) denied: {e}")
    raise SystemExit(0)
print("INFO socket(AF_INET) created (no seccomp filter yet)")
s.settimeout(1)
try:
    s.connect(("127.0.0.1", int(os.environ["HOST_PORT"])))
except OSError as e:
    print(f"BLOCKED connect failed: {e.__class__.__name__} {e.errno}")
else:
    print("LEAKED connected")

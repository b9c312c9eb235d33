# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: connects to an abstract-namespace unix socket the runner listens on in the host (HOST_ABSTRACT); abstract unix names are scoped by network namespace (X11, containerd and dbus use them), and AF_UNIX stays allowed by seccomp, so only the net namespace stops this.
import os, socket
name = "\0" + os.environ["HOST_ABSTRACT"]
for kind in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET, socket.SOCK_DGRAM):
    s = socket.socket(socket.AF_UNIX, kind)
    s.settimeout(1)
    try:
        if kind == socket.SOCK_DGRAM:
            s.sendto(b"escape", name)
        else:
            s.connect(name)
    except OSError as e:
        print(f"BLOCKED abstract {kind!r}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED reached the host's abstract socket with {kind!r}")
    s.close()
for path in ["/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock", "/run/dbus/system_bus_socket"]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
    except OSError as e:
        print(f"BLOCKED {path}: {e.errno}")
    else:
        print(f"LEAKED connected to {path}")

"""What both security corpora (one-shot cases in test_corpus.py, sessions in test_session_corpus.py) plant on
the host before an attack and look for after it: a canary file under the host's /tmp, listeners on
127.0.0.1 (TCP, UDP) and an abstract unix socket that must hear nothing, and the case's token in host process
command lines and host directories."""

import os
import secrets
import select
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path


def make_canary(prefix: str) -> tuple[str, str]:
    """A file under the host's /tmp holding a random text; returns (path, text)."""
    text = prefix + secrets.token_hex(16)
    fd, path = tempfile.mkstemp(prefix=f"sbx-{prefix}", dir="/tmp")
    os.write(fd, text.encode())
    os.close(fd)
    os.chmod(path, 0o644)  # readable by anyone on the host: only the sandbox's view protects it
    return path, text


@dataclass
class Listeners:
    """The host's bait: a TCP and a UDP socket on 127.0.0.1 and an abstract unix socket; none may hear anything."""

    tcp: socket.socket
    udp: socket.socket
    abstract: socket.socket
    abstract_name: str

    @classmethod
    def open(cls, name_prefix: str) -> "Listeners":
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(16)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        udp.setblocking(False)
        abstract_name = name_prefix + secrets.token_hex(8)
        abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        abstract.bind("\0" + abstract_name)
        abstract.listen(16)
        return cls(tcp, udp, abstract, abstract_name)

    @property
    def tcp_port(self) -> int:
        return self.tcp.getsockname()[1]

    @property
    def udp_port(self) -> int:
        return self.udp.getsockname()[1]

    def heard(self) -> list[str]:
        """What reached a listener (and is consumed now): a connection or a datagram."""
        found = []
        readable, _, _ = select.select([self.tcp, self.abstract], [], [], 0)
        for sock, what in ((self.tcp, "TCP"), (self.abstract, "abstract unix")):
            if sock in readable:
                connection, _ = sock.accept()
                connection.close()
                found.append(f"the host's {what} listener accepted a connection")
        try:
            data = self.udp.recv(4096)
            found.append(f"the host's UDP listener received {data[:80]!r}")
        except BlockingIOError:
            pass
        return found

    def close(self) -> None:
        for sock in (self.tcp, self.udp, self.abstract):
            sock.close()


def processes_with(tokens: list[str]) -> list[str]:
    """Host processes (other than this one) whose command line holds one of `tokens`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue  # it ended while we looked
        for token in tokens:
            if token.encode() in cmdline:
                shown = cmdline.replace(b"\0", b" ")[:200]
                found.append(f"pid {pid}: {shown!r}")
    return found


def paths_with(token: str, directories) -> list[str]:
    """Entries of `directories` whose name holds `token` (where an escaping write would land)."""
    found = []
    for directory in set(directories):
        try:
            found += [os.path.join(directory, name) for name in os.listdir(directory) if token in name]
        except OSError:
            pass
    return found

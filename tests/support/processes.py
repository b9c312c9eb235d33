"""What the host's /proc says about processes: a test's evidence that a sandbox's processes started or are gone."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List, Optional, Tuple


def _stat(pid: int) -> Optional[Tuple[str, str, int]]:
    """(comm, state, parent pid) of a process, None when there is none. comm may hold spaces and parentheses:
    it runs from the first "(" to the last ")"."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return text[text.index("(") + 1:text.rindex(")")], fields[0], int(fields[1])


def state(pid: int) -> Optional[str]:
    """The process's state letter (R, S, T, Z, ...), None when there is no such process."""
    found = _stat(pid)
    return found[1] if found else None


def gone(pid: int) -> bool:
    """Whether the process has ended: no such process, or a zombie nobody reaped yet (it runs no more)."""
    return state(pid) in (None, "Z", "X")


def descendants(pid: int) -> Dict[int, str]:
    """{pid: comm} of every process below `pid` (children, their children, ...); iterate it for the pids."""
    children: Dict[int, list] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            found = _stat(int(entry.name))
            if found:
                children.setdefault(found[2], []).append((int(entry.name), found[0]))
    below, pending = {}, [pid]
    while pending:
        for child, comm in children.get(pending.pop(), []):
            if child not in below:
                below[child] = comm
                pending.append(child)
    return below


# /proc/net/tcp's state column: LISTEN is a listening socket, every other state one connection (or its end).
_TCP_LISTEN = "0A"


def _address(hex_address: str) -> str:
    """/proc/net/tcp's address (little-endian hex IPv4, or IPv6 words) without its port; IPv4 (also mapped into
    IPv6) as a dotted quad."""
    host = hex_address.split(":")[0]
    if len(host) == 32 and host.startswith("0000000000000000FFFF0000"):
        host = host[24:]
    if len(host) == 8:
        return ".".join(str(int(host[i:i + 2], 16)) for i in (6, 4, 2, 0))
    return host


def tcp_connections(pid: int) -> List[Tuple[str, int]]:
    """The TCP connections (IPv4 and IPv6, any state but listening, closing ones included) the process holds
    open, each as (the peer's address, the bytes received that the process has not read yet): a server is done
    with a client when its connections are gone from here, and has read a request when its connection shows 0."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink().name
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()  # sl local remote state tx_queue:rx_queue ... uid timeout inode
            if fields[3] != _TCP_LISTEN and fields[9] in inodes:
                found.append((_address(fields[2]), int(fields[4].split(":")[1], 16)))
    return found


def seconds_since_start(pid: int) -> Optional[float]:
    """How long ago the process started (by the kernel's boot-time clock), None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except OSError:
        return None
    start_ticks = int(text[text.rindex(")") + 2:].split()[19])  # field 22, starttime, counted from field 3
    return uptime - start_ticks / os.sysconf("SC_CLK_TCK")

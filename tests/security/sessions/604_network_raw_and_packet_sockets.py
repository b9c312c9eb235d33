# why: raw IP, AF_PACKET and netlink-route sockets, which could sniff or forge traffic or configure interfaces, are refused in a session
# create: {"timeout": 60, "allow_internet_access": false}
CELL = """
import socket
opened = []
for family, kind, proto in [(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP), (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW),
                            (socket.AF_PACKET, socket.SOCK_RAW, 0x0300), (socket.AF_INET6, socket.SOCK_RAW, 58)]:
    try:
        socket.socket(family, kind, proto)
        opened.append((family, kind))
    except OSError:
        pass
opened
"""


def attack(sandbox, host):
    execution = sandbox.run_code(CELL)
    assert execution.text == "[]", f"raw sockets opened: {execution.text}"
    out = sandbox.commands.run("ip link set lo up 2>/dev/null && echo CONFIGURED; ip link add x type dummy 2>/dev/null && echo ADDED; "
                               "ping -c1 -W1 127.0.0.1 >/dev/null 2>&1 && echo PINGED; true").stdout
    assert "ADDED" not in out and "PINGED" not in out, out

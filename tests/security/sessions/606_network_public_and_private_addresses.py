# why: without network, connections to public and private addresses (1.1.1.1, 10.0.0.1, the metadata address 169.254.169.254, IPv6) fail at once from cells and commands
# create: {"timeout": 60, "allow_internet_access": false}
# timeout: 40
CELL = """
import socket
reached = []
for address in [('1.1.1.1', 53), ('10.0.0.1', 80), ('169.254.169.254', 80), ('8.8.8.8', 443)]:
    try:
        socket.create_connection(address, timeout=2).close()
        reached.append(address[0])
    except OSError:
        pass
try:
    socket.create_connection(('2606:4700:4700::1111', 53), timeout=2).close()
    reached.append('ipv6')
except OSError:
    pass
reached
"""


def attack(sandbox, host):
    assert sandbox.run_code(CELL, timeout=20).text == "[]"
    out = sandbox.commands.run("curl -s -m 2 http://169.254.169.254/ && echo REACHED; curl -s -m 2 http://1.1.1.1/ && echo REACHED; true",
                               timeout=20).stdout
    assert "REACHED" not in out, out

# why: without network, AF_INET sockets are refused by the session's seccomp filter; and even where a session could listen on its 127.0.0.1, that is the loopback of its own network namespace: the other session never connects
# sessions: 2
SERVE = """
import socket
try:
    server = socket.socket()
    server.bind(("127.0.0.1", 8765))
    server.listen(4)
    state = "listening"
except OSError as error:
    state = "refused " + type(error).__name__
state
"""
CONNECT = """
import socket
try:
    client = socket.socket()
    client.settimeout(2)
    outcome = client.connect_ex(("127.0.0.1", 8765))
except OSError as error:
    outcome = "refused " + type(error).__name__
outcome
"""


def attack(first, second, host):
    served = first.run_code(SERVE)
    assert served.error is None, served.error
    reached = second.run_code(CONNECT)
    assert reached.error is None and reached.text != "0", f"the other session's port answered: {reached.text}"
    probe = second.commands.run("curl -s -m 2 -o /dev/null -w '%{http_code}' http://127.0.0.1:8765/ || echo refused").stdout
    assert "200" not in probe

# why: abstract unix sockets live in the network namespace: a listener in one session (and the host's) cannot be reached from the other session
# sessions: 2
LISTEN = """
import socket, threading
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind("\\0{name}")
listener.listen(4)
listener.settimeout(0.5)
heard = []
def serve():
    while True:
        try:
            heard.append(listener.accept())
        except OSError:
            pass
threading.Thread(target=serve, daemon=True).start()
"""
CONNECT = """
import socket
out = []
for name in {names!r}:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("\\0" + name)
        out.append("CONNECTED " + name)
    except OSError as error:
        out.append("refused " + type(error).__name__)
out
"""


def attack(first, second, host):
    name = "cross-" + host.token
    assert first.run_code(LISTEN.format(name=name)).error is None
    execution = second.run_code(CONNECT.format(names=[name, host.abstract_name]))
    assert execution.error is None and "CONNECTED" not in execution.text, execution.text
    assert first.run_code("len(heard)").text == "0"

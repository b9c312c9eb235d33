# why: with allow_internet_access=False the session has its own network namespace and no AF_INET sockets: a cell, bash's /dev/tcp and curl cannot reach the host's 127.0.0.1 listener (the runner checks it heard nothing)
# create: {"timeout": 60, "allow_internet_access": false}
def attack(sandbox, host):
    port = host.tcp_port
    execution = sandbox.run_code(f"import socket\ntry:\n    s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    r = 'CONNECTED'\n"
                                 "except OSError as e:\n    r = type(e).__name__\nr")
    assert execution.error is None and "CONNECTED" not in execution.text, execution.text
    out = sandbox.commands.run(f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo CONNECTED; "
                               f"curl -s -m 2 http://127.0.0.1:{port}/ && echo CONNECTED; "
                               f"curl -s -m 2 http://localhost:{port}/ && echo CONNECTED; true").stdout
    assert "CONNECTED" not in out, out

# why: abstract unix sockets belong to the network namespace: the host's abstract listener cannot be reached from a cell, a command or Node (the runner checks it heard nothing)
# create: {"timeout": 60, "allow_internet_access": false}
def attack(sandbox, host):
    name = host.abstract_name
    execution = sandbox.run_code(f"import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect('\\0{name}')\n    r = 'CONNECTED'\n"
                                 "except OSError as e:\n    r = type(e).__name__\nr")
    assert "CONNECTED" not in execution.text, execution.text
    out = sandbox.commands.run(f"python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0{name}'); print('CONNECTED')\" 2>/dev/null; true").stdout
    assert "CONNECTED" not in out
    js = sandbox.run_code(f"const net = require('net');\nawait new Promise(r => {{ const c = net.connect({{path: '\\0{name}'}});"
                          " c.on('connect', () => r('CONNECTED')); c.on('error', () => r('failed')); }})", language="javascript", timeout=10)
    assert js.text is None or "CONNECTED" not in js.text, js

# why: name resolution does not work without network: getaddrinfo in a cell, getent and curl in commands, and Node's dns.lookup all fail, and no query leaves the session
# create: {"timeout": 60, "allow_internet_access": false}
# timeout: 40
def attack(sandbox, host):
    execution = sandbox.run_code("import socket\ntry:\n    r = socket.getaddrinfo('example.com', 80)\nexcept OSError as e:\n    r = 'failed'\nr", timeout=15)
    assert execution.text == "'failed'", execution.text
    out = sandbox.commands.run("getent hosts example.com && echo RESOLVED; curl -s -m 3 -o /dev/null http://example.com/ && echo FETCHED; true",
                               timeout=15).stdout
    assert "RESOLVED" not in out and "FETCHED" not in out, out
    js = sandbox.run_code("const dns = require('dns');\nawait new Promise(r => dns.lookup('example.com', (e, a) => r(e ? 'failed' : a)))",
                          language="javascript", timeout=15)
    assert js.text is None or "failed" in js.text or js.error is not None, js

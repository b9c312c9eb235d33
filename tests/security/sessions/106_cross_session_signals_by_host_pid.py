# why: host pids mean nothing inside a pid namespace: a session that learns the other session's host pids and signals them hits nothing of the other (kill fails with ESRCH or hits its own processes), and cannot open their /proc entries
# sessions: 2


def attack(first, second, host):
    first.commands.run(f"python3 -c 'import time; time.sleep(600)' {host.token}", background=True)
    assert host.wait_until(lambda: host.processes_with_token(), 5)
    victims = host.session_pids(first)
    script = ("for p in %s; do kill -9 $p 2>/dev/null; cat /proc/$p/environ 2>/dev/null | tr '\\0' '\\n' | grep -c E2BEVAL_AGENT; done; true"
              % " ".join(map(str, victims)))
    second.commands.run(script, timeout=10)
    assert set(victims) <= set(host.session_pids(first)), "the other session's processes were killed by host pid"
    assert host.processes_with_token()
    assert first.run_code("'ok'").text == "'ok'"

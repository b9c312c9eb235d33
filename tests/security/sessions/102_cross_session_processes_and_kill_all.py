# why: sessions have separate pid namespaces: one cannot see the other's processes, and `kill -9 -1` from one ends only its own processes (the host sees the other's process still alive, and the other still answers)
# sessions: 2
from e2beval.sandbox import SandboxException


def attack(first, second, host):
    t = host.token
    first.commands.run(f"python3 -c 'import time; time.sleep(600)' {t}", background=True)
    assert host.wait_until(lambda: host.processes_with_token(), 5), "the marked process never started"
    seen = second.commands.run("ps -eo args 2>/dev/null; cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '").stdout
    assert t not in seen, "the other session's process is visible"
    try:
        second.commands.run("kill -9 -1; sleep 1", timeout=10)
    except SandboxException:
        pass  # the command killed itself and perhaps the second session's agent with it
    first_pids = host.session_pids(first)
    assert [p for p in host.processes_with_token()], "kill -9 -1 in one session killed the other's process"
    assert first_pids and first.run_code("'first alive'").text == "'first alive'"

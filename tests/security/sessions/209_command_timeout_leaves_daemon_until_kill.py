# why: a command that times out after starting a SIGTERM-ignoring background child raises TimeoutException promptly; whatever the child does, kill() ends it
from e2beval.sandbox import TimeoutException


def attack(sandbox, host):
    try:
        sandbox.commands.run(
            f"(trap '' TERM HUP; exec python3 -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)' {host.token}) & sleep 60",
            timeout=1)
        raise AssertionError("the command did not time out")
    except TimeoutException:
        pass
    assert sandbox.run_code("'after'").text == "'after'"
    sandbox.kill()
    assert host.wait_session_gone(sandbox) == []
    assert not host.processes_with_token()

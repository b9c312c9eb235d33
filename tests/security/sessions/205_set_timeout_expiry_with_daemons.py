# why: set_timeout(2) shortens the lifetime; when it ends the daemons the session started (from a command and from a cell) are gone from the host
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    sandbox.commands.run(f"(setsid sleep 1000 &); (setsid python3 -c 'import time; time.sleep(1000)' {host.token} &)")
    sandbox.run_code(f"import subprocess\nsubprocess.Popen(['python3', '-c', 'import time; time.sleep(1000)', {host.token!r}], start_new_session=True)")
    assert host.wait_until(lambda: len(host.processes_with_token()) >= 2, 5)
    sandbox.set_timeout(2)
    assert host.wait_until(lambda: not sandbox.is_running(), 15), "set_timeout did not end the session"
    assert host.wait_session_gone(sandbox) == []
    assert not host.processes_with_token()
    try:
        sandbox.commands.run("true")
        raise AssertionError("a command ran after the session expired")
    except SandboxException:
        pass

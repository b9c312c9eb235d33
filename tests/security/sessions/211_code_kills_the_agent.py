# why: a command that SIGKILLs its parent (the agent) ends the session: the call returns a SandboxException at once instead of hanging, later calls say the sandbox is closed, and nothing of it is left on the host
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    sandbox.commands.run(f"python3 -c 'import time; time.sleep(1000)' {host.token}", background=True)
    try:
        sandbox.commands.run("kill -KILL $PPID; sleep 30", timeout=10)
        raise AssertionError("the command returned normally after killing the agent")
    except SandboxException:
        pass
    try:
        sandbox.run_code("1")
        raise AssertionError("the session still answers after its agent was killed")
    except SandboxException:
        pass
    assert host.wait_session_gone(sandbox) == []
    assert not host.processes_with_token()

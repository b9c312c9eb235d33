# why: a command that SIGKILLs its parent, pid 1 and everything it may signal reaches only its own pid namespace (docs/sessions.md, trust boundary): the agent lives on, the command ends at its own timeout, the session keeps answering, and after kill() nothing of it is left on the host
from e2beval.sandbox import TimeoutException


def attack(sandbox, host):
    sandbox.commands.run(f"python3 -c 'import time; time.sleep(1000)' {host.token}", background=True)
    try:
        result = sandbox.commands.run("kill -KILL $PPID; kill -KILL 1; kill -KILL -1; sleep 30", timeout=5)
        raise AssertionError(f"the command should have run into its timeout, it returned {result}")
    except TimeoutException:
        pass
    assert sandbox.run_code("6 * 7").text == "42", "the session stopped answering"
    assert sandbox.commands.run("echo alive").stdout == "alive\n"
    sandbox.kill()
    assert host.wait_session_gone(sandbox) == []
    assert host.wait_until(lambda: not host.processes_with_token(), 5)

# why: a cell that forks, setsids and execs a daemon ignoring every catchable signal leaves a process of the session's pid namespace, which kill() ends
CELL = """
import os, signal
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR1):
            signal.signal(s, signal.SIG_IGN)
        os.execvp("python3", ["python3", "-c", "import signal, time\\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\\ntime.sleep(1000)", {token!r}])
    os._exit(0)
"""


def attack(sandbox, host):
    assert sandbox.run_code(CELL.format(token=host.token)).error is None
    assert host.wait_until(lambda: host.processes_with_token(), 5), "the daemon did not start"
    assert sandbox.run_code("1 + 1").text == "2"
    sandbox.kill()
    assert host.wait_session_gone(sandbox) == []
    assert not host.processes_with_token()

# why: when the session's lifetime (3 s) ends, its whole pid namespace is killed, daemons included, and later calls raise TimeoutException
# create: {"timeout": 3}
import time

from e2beval.sandbox import TimeoutException


def attack(sandbox, host):
    sandbox.commands.run(f"(setsid python3 -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)' {host.token} &)")
    sandbox.run_code(f"import subprocess\nsubprocess.Popen(['sleep', '1000'], start_new_session=True)")
    assert host.wait_until(lambda: host.processes_with_token(), 5)
    assert host.wait_until(lambda: not sandbox.is_running(), 15), "the session outlived its timeout"
    assert host.wait_session_gone(sandbox) == [], "processes outlived the session's lifetime"
    assert not host.processes_with_token()
    try:
        sandbox.run_code("1")
        raise AssertionError("a call after the lifetime succeeded")
    except TimeoutException:
        pass

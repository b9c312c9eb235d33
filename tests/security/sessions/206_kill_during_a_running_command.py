# why: kill() from another thread while commands.run waits on a long command ends the call with a SandboxException (not a hang) and every process of the session is gone
import threading
import time

from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    outcome = {}

    def run():
        try:
            outcome["result"] = sandbox.commands.run(f"python3 -c 'import time; time.sleep(60)' {host.token}", timeout=0)
        except SandboxException as error:
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    assert host.wait_until(lambda: host.processes_with_token(), 5)
    sandbox.kill()
    worker.join(10)
    assert not worker.is_alive(), "commands.run still waits 10 s after kill()"
    assert "error" in outcome, f"commands.run returned {outcome.get('result')} after kill()"
    assert host.wait_session_gone(sandbox) == []

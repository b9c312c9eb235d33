# why: kill() while run_code spins in a cell that ignores interrupts ends the call with a SandboxException and leaves no process of the session
import threading

from e2beval.sandbox import SandboxException

CELL = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"


def attack(sandbox, host):
    outcome = {}

    def run():
        try:
            outcome["result"] = sandbox.run_code(CELL, timeout=0)
        except SandboxException as error:
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(1.0)
    sandbox.kill()
    worker.join(10)
    assert not worker.is_alive(), "run_code still waits 10 s after kill()"
    assert "error" in outcome, f"run_code returned {outcome.get('result')} after kill()"
    assert host.wait_session_gone(sandbox) == []

# why: threads count against the session's pids.max too: a cell that starts threads until it cannot gets an error inside, and the host's thread count for the session stays within the limit
# create: {"timeout": 60, "limits": {"max_processes": 64}}
CELL = """
import threading, time
started = 0
try:
    for _ in range(100000):
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        started += 1
except RuntimeError as error:
    stopped = "RuntimeError"
started
"""


def attack(sandbox, host):
    execution = sandbox.run_code(CELL, timeout=20)
    threads = 0
    for pid in host.session_pids(sandbox):
        try:
            threads += len(__import__("os").listdir(f"/proc/{pid}/task"))
        except OSError:
            pass
    assert threads <= 64 + 2, f"{threads} threads in a session limited to 64"
    assert execution.error is None and int(execution.text) < 64, execution

"""`e2beval serve` reads every session's agent on its I/O thread (Session::async_call, issue 37): concurrent
run_code calls through the official SDK do not start a thread each. The server's threads are counted through
/proc/PID/task while 20 cells run at once (each waits in `time.sleep`), and must stay within 8 + the machine's
CPUs, the bound docs/architecture.md gives. Before issue 37 each call had a thread of its own (23+ here)."""
import os
import threading

from e2b_code_interpreter import Sandbox

from serve_process import ServeProcess

CALLS = 20
CELL = "import time\ntime.sleep(2)\n'slept'"


def thread_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def test_concurrent_run_code_does_not_start_a_thread_per_call(monkeypatch):
    bound = 8 + os.cpu_count()
    server = ServeProcess("--max-sandboxes", str(CALLS + 2), "--creation-rate", "1000", "--ready-sandboxes", "2")
    pid = server.process.pid
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)  # the SDK reads them; restored after the test
    sandboxes = []
    try:
        sandboxes = [Sandbox.create(timeout=300) for _ in range(CALLS)]
        in_flight = 0
        lock = threading.Lock()
        all_in_flight = threading.Event()
        done = threading.Event()
        counts_while_all_ran = []
        most = [thread_count(pid)]
        texts = [None] * CALLS
        errors = []

        def run(index: int) -> None:
            nonlocal in_flight
            with lock:
                in_flight += 1
                if in_flight == CALLS:
                    all_in_flight.set()
            try:
                texts[index] = sandboxes[index].run_code(CELL).text
            except Exception as error:  # noqa: BLE001 - reported by the assertion below
                errors.append(error)
            finally:
                with lock:
                    in_flight -= 1

        def sample() -> None:
            while not done.is_set():
                count = thread_count(pid)
                most[0] = max(most[0], count)
                with lock:
                    if in_flight == CALLS:
                        counts_while_all_ran.append(count)
                done.wait(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        callers = [threading.Thread(target=run, args=(index,)) for index in range(CALLS)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        done.set()
        sampler.join()

        assert not errors, errors[:3]
        assert texts == ["slept"] * CALLS
        assert all_in_flight.is_set()
        assert counts_while_all_ran, "the sampler never saw all the calls in flight at once"
        assert most[0] <= bound, f"the server had {most[0]} threads with {CALLS} calls in flight (bound {bound})"
    finally:
        for sandbox in sandboxes:
            try:
                sandbox.kill()
            except Exception:  # noqa: BLE001 - the server's stop kills what is left
                pass
        server.stop()

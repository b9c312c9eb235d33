"""Session soak (issue 37): N sessions (default 1000) created, used and killed in a loop through the Python
module, three calls each on its session (run_code, a command, a file written and read back) plus, every tenth,
two calls at once from two threads (the reader moves between their private io_contexts). This process's
threads, open fds and RSS must stay flat: the figures of the first and the last 100 sessions are printed, and
the run fails when the last 100's exceed the first 100's by more than a small margin (threads and fds: any
growth; RSS: 8 MiB, the allocator's slack).

Run by hand (about 2-4 minutes on 2 cores, not part of the default run):
    .venv/bin/python tests/soak/session_churn.py [--sessions N]
"""

import argparse
import os
import sys
import threading

import e2beval
from e2beval.sandbox import Sandbox


def figures():
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    return {
        "threads": int(status["Threads"]),
        "fds": len(os.listdir("/proc/self/fd")),
        "rss_kib": int(status["VmRSS"].split()[0]),
    }


def use(sandbox, index):
    execution = sandbox.run_code(f"{index} + 1")
    assert execution.text == str(index + 1), (execution.text, execution.error)
    result = sandbox.commands.run(f"echo {index}")
    assert result.stdout.strip() == str(index), result
    sandbox.files.write(f"/home/user/f{index}.txt", f"file {index}")
    assert sandbox.files.read(f"/home/user/f{index}.txt") == f"file {index}"
    if index % 10 == 0:
        outputs = [None, None]

        def cell(slot):
            outputs[slot] = sandbox.run_code(f"import time; time.sleep(0.05); {slot}").text

        both = [threading.Thread(target=cell, args=(slot,)) for slot in (0, 1)]
        for thread in both:
            thread.start()
        for thread in both:
            thread.join()
        assert outputs == ["0", "1"], outputs


def summary(rows):
    return {key: (min(row[key] for row in rows), max(row[key] for row in rows)) for key in rows[0]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    rows = []
    for index in range(args.sessions):
        sandbox = Sandbox.create()
        try:
            use(sandbox, index)
        finally:
            sandbox.kill()
        rows.append(figures())
        if (index + 1) % 100 == 0:
            print(f"{index + 1} sessions: {rows[-1]}", flush=True)
    window = min(100, len(rows) // 2)
    first, last = summary(rows[:window]), summary(rows[-window:])
    print(f"first {window} sessions (min, max): {first}")
    print(f"last {window} sessions (min, max):  {last}")
    grown = []
    if last["threads"][1] > first["threads"][1]:
        grown.append("threads")
    if last["fds"][1] > first["fds"][1]:
        grown.append("fds")
    if last["rss_kib"][1] > first["rss_kib"][1] + 8 * 1024:
        grown.append("rss")
    print("flat" if not grown else "GREW: " + ", ".join(grown))
    return 1 if grown else 0


if __name__ == "__main__":
    sys.exit(main())

"""The threads of `e2beval serve` while many sandboxes run a cell at once (issue 37): N sandboxes (default 200)
are created through the official SDK (e2b_code_interpreter), then each runs a 2-second cell (`time.sleep(2)`)
at the same moment, from a thread of its own, then all are killed. A sampler counts the server's threads
(/proc/PID/task) every 20 ms throughout; the bound is 8 + the machine's CPUs (docs/architecture.md, "Event loops
and threads"). Session calls are Session::async_call on the server's I/O thread, so the count should not grow
with the calls; before issue 37 each call had a thread (53 at 50 concurrent).

Not a test (it needs minutes and N sandboxes' memory, about 30 MB each in the bare environment): run it by hand.

Usage: .venv/bin/python bench/serve_threads.py [--sandboxes N] [--cli PATH] [--json]
  --cli: the e2beval to serve with (default: this worktree's .venv/bin/e2beval; another worktree's for a before)
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List

import benchlib as bl

CELL = "import time\ntime.sleep(2)\n'slept'"


class Sampler:
    """The server's thread count every 20 ms, by phase."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.phase = "idle"
        self.most: Dict[str, int] = {}
        self.samples: Dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def count(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/task"))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                count = self.count()
            except FileNotFoundError:
                return
            self.most[self.phase] = max(self.most.get(self.phase, 0), count)
            self.samples[self.phase] = self.samples.get(self.phase, 0) + 1
            self._stop.wait(0.02)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main() -> int:
    args = bl.parse_args(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--sandboxes", type=int, default=200, help="sandboxes, each in one cell at once (default 200)"),
            p.add_argument("--cli", default=str(bl.E2BEVAL_CLI), help="the e2beval that serves"),
            p.add_argument("--ready", type=int, default=8, help="the server's ready sandboxes (default 8)"),
        ),
    )
    report = bl.Report("serve_threads", args.json)
    bound = 8 + (os.cpu_count() or 1)
    n = args.sandboxes
    server = subprocess.Popen(
        [args.cli, "serve", "--port", "0", "--max-sandboxes", str(n + 10), "--creation-rate", "100000",
         "--max-connections", str(4 * n + 64), "--max-connections-per-address", str(4 * n + 64),
         "--ready-sandboxes", str(args.ready), "--bare-code-interpreter"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for _ in range(3):
        name, _, value = server.stdout.readline().strip().removeprefix("export ").partition("=")
        os.environ[name] = value
    from e2b_code_interpreter import Sandbox

    report.say(f"serve_threads: {n} sandboxes through the SDK, each in a 2 s cell at once; server {args.cli} "
               f"(pid {server.pid}); bound {bound} threads (8 + {os.cpu_count()} CPUs)")
    sandboxes: List[Sandbox] = []
    texts: List[object] = [None] * n
    try:
        with Sampler(server.pid) as sampler:
            time.sleep(0.2)
            sampler.phase = "create"
            started = time.monotonic()
            with ThreadPoolExecutor(16) as pool:
                sandboxes = list(pool.map(lambda _: Sandbox.create(timeout=600), range(n)))
            report.say(f"  created {n} in {time.monotonic() - started:.1f} s")
            sampler.phase = "run"
            gate = threading.Barrier(n)

            def run(index: int) -> None:
                gate.wait()
                try:
                    texts[index] = sandboxes[index].run_code(CELL, timeout=120).text
                except Exception as error:  # noqa: BLE001 - counted below
                    texts[index] = error

            started = time.monotonic()
            callers = [threading.Thread(target=run, args=(i,)) for i in range(n)]
            for caller in callers:
                caller.start()
            for caller in callers:
                caller.join()
            report.say(f"  {n} cells of 2 s ran in {time.monotonic() - started:.1f} s")
            sampler.phase = "kill"
            with ThreadPoolExecutor(16) as pool:
                list(pool.map(lambda sandbox: sandbox.kill(), sandboxes))
            sandboxes = []
            time.sleep(0.2)
    finally:
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda sandbox: sandbox.kill(), sandboxes))
        server.terminate()
        server.wait(timeout=120)
    failed = [text for text in texts if text != "slept"]
    if failed:
        report.say(f"  {len(failed)} of {n} cells failed; first: {failed[0]!r}")
    for phase in ("idle", "create", "run", "kill"):
        most = sampler.most.get(phase)
        if most is None:
            continue
        report.row(f"most server threads, {phase} ({sampler.samples[phase]} samples)", str(most), "-", "-",
                   f"<= {bound}", most <= bound)
    report.raw = {"most": sampler.most, "samples": sampler.samples, "failed_cells": len(failed)}
    if failed:
        report.error = f"{len(failed)} cells failed"
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

"""`e2beval serve` through the official E2B Python SDK (issue 15): create -> run_code("1+1") -> kill, against
e2beval's own `e2beval.Sandbox` doing the same three steps in the same run.

- sequential: ROUNDS rounds, each one SDK sample and one e2beval.Sandbox sample (interleaved, so a burst of
  load hits both); p50 and p99 of each, the whole create -> run_code -> kill timed. Before each sample an
  untimed pause (--pause, 0.5 s) lets each side's session pool refill, as in an agent loop where the model's
  answer takes longer than a sandbox's start; without it each side would get the other's sample as refill
  time, and the faster sample would find its pool empty more often (a bias, not a measurement);
- concurrent: CONCURRENT threads at once, each create -> run_code -> kill, timed per thread (the create alone
  too: "average at 50 concurrent creations" is the create's figure, the way CubeSandbox states its 67 ms); the
  average and p95 over the threads, for the SDK against the server and for e2beval.Sandbox (the GIL is released
  in its calls, so threads are its concurrent path too). Both keep --ready sandboxes started ahead of demand
  (`e2beval serve --ready-sandboxes`, $E2BEVAL_SESSION_POOL; default: as many as the burst, which costs about
  27 MB of memory each, docs/serve.md), and the burst starts once both pools are full (their sandboxes' init
  processes are children of the server and of this process).

The server runs with --max-sandboxes and --creation-rate above what the bench asks for, so that neither limit
(both meant for shared servers) is what is measured. Targets (issue 15): p50 <= 15 ms sequential, average
<= 60 ms at 50 concurrent, for the SDK through the server. The ratio column is SDK / e2beval.Sandbox.

With --baseline DIR (a worktree of another commit, built with scripts/setup.sh: its .venv/bin/e2beval is the
baseline server), the bench compares the two servers instead: --bursts bursts of --concurrent SDK clients each
doing create -> run_code -> kill, alternating between this build's server and the baseline's (both running, both
pools full before each burst); p50 and p99 of the round trips of each, and their ratio (this / baseline).

Usage: .venv/bin/python bench/serve_bench.py [--rounds N] [--concurrent N] [--ready N] [--pause S] [--json]
       .venv/bin/python bench/serve_bench.py --baseline /work/wt/loopbase [--bursts N] [--concurrent N]
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Tuple

import benchlib as bl

CELL = "1+1"


class Server:
    """One `e2beval serve` on a free port; its export lines go into this process's environment, where the SDK
    reads them."""

    def __init__(self, sandboxes: int, ready: int, cli: str = str(bl.E2BEVAL_CLI)) -> None:
        self.env: Dict[str, str] = {}
        self.process = subprocess.Popen(
            # --bare-code-interpreter: the SDK's default template in the default environment, as e2beval.Sandbox's
            # sandboxes are, so the two sides differ only by the server (and a first run builds nothing).
            [cli, "serve", "--port", "0", "--max-sandboxes", str(sandboxes), "--creation-rate", "100000",
             "--ready-sandboxes", str(ready), "--bare-code-interpreter"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3):
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("e2beval serve ended before printing its export lines: " + self.process.stderr.read()[-500:])
            name, _, value = line.strip().removeprefix("export ").partition("=")
            self.env[name] = value
        self.use()

    def use(self) -> None:
        """Points the SDK at this server (it reads the variables when it creates a sandbox)."""
        os.environ.update(self.env)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)


def children(pid: int) -> List[int]:
    found: List[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as listed:
            found += [int(child) for child in listed.read().split()]
    return found


def wait_for_server_pools(servers: List["Server"], ready: int) -> None:
    """Until every server has `ready` sandboxes started, for at most two minutes."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if all(len(children(server.process.pid)) >= ready for server in servers):
            return
        time.sleep(0.2)
    raise RuntimeError(f"the servers' pools did not reach {ready} ready sandboxes within 120 s")


def compare_with_baseline(args: Any, report: "bl.Report") -> int:
    """This build's server against the baseline's, in alternating bursts of SDK clients."""
    from pathlib import Path

    baseline_cli = Path(args.baseline) / ".venv" / "bin" / "e2beval"
    if not baseline_cli.exists():
        report.error = f"{baseline_cli} does not exist: build the baseline worktree with scripts/setup.sh first"
        report.say("serve: FAILED: " + report.error)
        return report.finish()
    ready = args.concurrent if args.ready is None else args.ready
    report.say(f"serve: create -> run_code({CELL!r}) -> kill, {args.concurrent} concurrent SDK clients, {args.bursts} "
               f"bursts each, alternating: this build ({bl.E2BEVAL_CLI}) vs baseline ({baseline_cli}); {ready} ready each")
    ours = Server(sandboxes=max(args.concurrent, ready) + 10, ready=ready)
    theirs = Server(sandboxes=max(args.concurrent, ready) + 10, ready=ready, cli=str(baseline_cli))
    timings: Dict[str, List[float]] = {"this": [], "baseline": []}
    try:
        with bl.ContentionMonitor() as monitor:
            for server in (ours, theirs):  # untimed: page everything in, fail early
                server.use()
                sdk_round_trip()
            for burst in range(args.bursts):
                order = [("this", ours), ("baseline", theirs)] if burst % 2 == 0 else [("baseline", theirs), ("this", ours)]
                for name, server in order:
                    wait_for_server_pools([ours, theirs], ready)
                    server.use()
                    timings[name] += [total for _, total in concurrently(sdk_round_trip, args.concurrent)]
                report.say(f"  burst {burst + 1}: this p50 {bl.ms(bl.percentile(timings['this'], 50))}, baseline p50 "
                           f"{bl.ms(bl.percentile(timings['baseline'], 50))} (so far)")
    except Exception as error:  # noqa: BLE001 - the SDK's own exceptions too: a failed bench, with its message
        report.error = f"{type(error).__name__}: {error}"
        report.say(f"serve: FAILED: {report.error}")
        return report.finish()
    finally:
        ours.stop()
        theirs.stop()
    report.contention = monitor.result
    report.say("serve: " + monitor.describe())
    report.raw = {"this_s": timings["this"], "baseline_s": timings["baseline"]}
    for label, q in (("p50", 50), ("p99", 99)):
        mine, base = bl.percentile(timings["this"], q), bl.percentile(timings["baseline"], q)
        report.row(f"{label} create+run_code+kill, {args.concurrent} concurrent SDK clients (n={len(timings['this'])})",
                   bl.ms(mine), f"baseline {bl.ms(base)}", bl.times(mine / base), "<= baseline", mine <= base)
    return report.finish()


def wait_for_pools(server: "Server", ready: int) -> None:
    """Until the server and this process each have `ready` sandboxes started (their init processes are direct
    children; the server is this process's other child), for at most two minutes."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ours = [child for child in children(os.getpid()) if child != server.process.pid]
        if len(children(server.process.pid)) >= ready and len(ours) >= ready:
            return
        time.sleep(0.2)
    raise RuntimeError(f"the pools did not reach {ready} ready sandboxes within 120 s")


def sdk_round_trip() -> Tuple[float, float]:
    from e2b_code_interpreter import Sandbox

    started = time.perf_counter()
    sandbox = Sandbox.create(timeout=120)
    created = time.perf_counter() - started
    try:
        execution = sandbox.run_code(CELL)
        if execution.error is not None or execution.text != "2":
            raise RuntimeError(f"SDK run_code('1+1') gave text {execution.text!r}, error {execution.error!r}")
    finally:
        sandbox.kill()
    return created, time.perf_counter() - started


def make_e2beval_round_trip(isolation: Dict[str, Any]) -> Callable[[], Tuple[float, float]]:
    from e2beval.sandbox import Sandbox

    def round_trip() -> Tuple[float, float]:
        started = time.perf_counter()
        sandbox = Sandbox.create(isolation=isolation)
        created = time.perf_counter() - started
        try:
            execution = sandbox.run_code(CELL)
            if execution.error is not None or execution.text != "2":
                raise RuntimeError(f"e2beval run_code('1+1') gave text {execution.text!r}, error {execution.error!r}")
        finally:
            sandbox.kill()
        return created, time.perf_counter() - started

    return round_trip


def concurrently(round_trip: Callable[[], Tuple[float, float]], threads: int) -> List[Tuple[float, float]]:
    """Each thread's create -> run_code -> kill, all started together."""
    results: List[Any] = [None] * threads
    gate = threading.Barrier(threads)

    def one(index: int) -> None:
        try:
            gate.wait()
            results[index] = round_trip()
        except Exception as error:  # noqa: BLE001 - reported below with its thread
            results[index] = error

    workers = [threading.Thread(target=one, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    failures = [result for result in results if isinstance(result, Exception)]
    if failures:
        raise RuntimeError(f"{len(failures)} of {threads} concurrent round trips failed; first: {failures[0]!r}")
    return results


def main() -> int:
    args = bl.parse_args(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--rounds", type=int, default=40, help="sequential samples of each (default 40)"),
            p.add_argument("--concurrent", type=int, default=50, help="threads at once (default 50)"),
            p.add_argument("--ready", type=int, default=None,
                           help="sandboxes each side keeps ready ahead of demand (default: --concurrent)"),
            p.add_argument("--pause", type=float, default=0.5, help="untimed seconds before each sequential sample (default 0.5)"),
            p.add_argument("--baseline", default=None,
                           help="a worktree of another commit (built): compare its server with this build's instead"),
            p.add_argument("--bursts", type=int, default=4, help="with --baseline: bursts of each (default 4)"),
        ),
    )
    report = bl.Report("serve", args.json)
    if args.baseline:
        return compare_with_baseline(args, report)
    ready = args.concurrent if args.ready is None else args.ready
    os.environ["E2BEVAL_SESSION_POOL"] = str(ready)  # e2beval.Sandbox's pool, read when its backend starts
    import e2beval

    isolation = {"minimum_level": args.min_isolation}
    e2beval_round_trip = make_e2beval_round_trip(isolation)
    report.say(f"serve: create -> run_code({CELL!r}) -> kill; official SDK through `e2beval serve` vs e2beval.Sandbox; "
               f"{args.rounds} sequential rounds, then {args.concurrent} concurrent; {ready} ready sandboxes each; "
               f"isolation >= {args.min_isolation}")
    server = Server(sandboxes=max(args.concurrent, ready) + 10, ready=ready)
    sdk_sequential: List[float] = []
    own_sequential: List[float] = []
    try:
        with bl.ContentionMonitor() as monitor:
            sdk_round_trip()  # untimed: page everything in, fail early
            e2beval_round_trip()
            for _ in range(args.rounds):
                time.sleep(args.pause)
                sdk_sequential.append(sdk_round_trip()[1])
                time.sleep(args.pause)
                own_sequential.append(e2beval_round_trip()[1])
            report.say(f"  sequential: SDK p50 {bl.ms(bl.percentile(sdk_sequential, 50))}, e2beval.Sandbox p50 "
                       f"{bl.ms(bl.percentile(own_sequential, 50))}")
            wait_for_pools(server, ready)
            sdk_burst = concurrently(sdk_round_trip, args.concurrent)
            wait_for_pools(server, ready)
            own_burst = concurrently(e2beval_round_trip, args.concurrent)
            sdk_creates, sdk_concurrent = [c for c, _ in sdk_burst], [t for _, t in sdk_burst]
            own_creates, own_concurrent = [c for c, _ in own_burst], [t for _, t in own_burst]
            report.say(f"  {args.concurrent} concurrent: SDK create average {bl.ms(sum(sdk_creates) / len(sdk_creates))}, "
                       f"e2beval.Sandbox create average {bl.ms(sum(own_creates) / len(own_creates))}")
    except (RuntimeError, e2beval.Error) as error:
        report.error = str(error)
        report.say(f"serve: FAILED: {error}")
        return report.finish()
    except Exception as error:  # the SDK's own exceptions: a failed bench, with its message
        report.error = f"{type(error).__name__}: {error}"
        report.say(f"serve: FAILED: {report.error}")
        return report.finish()
    finally:
        server.stop()

    report.contention = monitor.result
    report.say("serve: " + monitor.describe())
    report.raw = {"sdk_sequential_s": sdk_sequential, "e2beval_sequential_s": own_sequential,
                  "sdk_concurrent_s": sdk_concurrent, "e2beval_concurrent_s": own_concurrent,
                  "sdk_concurrent_create_s": sdk_creates, "e2beval_concurrent_create_s": own_creates}

    def figure(name: str, sdk: float, own: float, target: str, met: Any) -> None:
        report.row(name, bl.ms(sdk), f"e2beval.Sandbox {bl.ms(own)}", bl.times(sdk / own), target, met)

    p50, own_p50 = bl.percentile(sdk_sequential, 50), bl.percentile(own_sequential, 50)
    figure(f"p50, SDK create+run_code+kill, sequential (n={len(sdk_sequential)})", p50, own_p50, "<= 15 ms", p50 * 1e3 <= 15)
    figure("p99, same", bl.percentile(sdk_sequential, 99), bl.percentile(own_sequential, 99), "(info)", None)
    average = sum(sdk_creates) / len(sdk_creates)
    figure(f"average create, {args.concurrent} concurrent creations", average, sum(own_creates) / len(own_creates),
           "<= 60 ms", average * 1e3 <= 60)
    figure("p95 create, same", bl.percentile(sdk_creates, 95), bl.percentile(own_creates, 95), "(info)", None)
    figure(f"average create+run_code+kill, {args.concurrent} concurrent", sum(sdk_concurrent) / len(sdk_concurrent),
           sum(own_concurrent) / len(own_concurrent), "(info)", None)
    figure("p95 create+run_code+kill, same", bl.percentile(sdk_concurrent, 95), bl.percentile(own_concurrent, 95),
           "(info)", None)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

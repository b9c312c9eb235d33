"""A stateful sandbox's first answer (issue 14): `Sandbox.create()` plus its first `run_code("1+1")`, p50,
against a plain `python3 -c '1+1'` start measured in the same run.

Each sample creates a sandbox, runs "1+1" in its default Python context (the result must be "2"), and kills
it; creation and the first cell are timed (together, and each for information), the kill is not.

Two ways, interleaved in every round:
- pool ready (the target's figure): before each sample, untimed, the bench waits until the pool of ready
  sandboxes holds one (e2beval.sandbox.ready_sandbox_pids()), as in an agent loop where the model's answer
  takes longer than a sandbox's start, or with a pool sized for the rate of creation (E2BEVAL_SESSION_POOL);
- back to back (information): the next sandbox is created as soon as the last is killed and the baseline has
  run, so it often waits for the pool's replacement still starting.
Where e2beval has no pool yet, both are the same.

Usage: .venv/bin/python bench/session_bench.py [--sessions N] [--rounds N] [--json]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any, Dict, List

import benchlib as bl

CELL = "1+1"
POOL_WAIT_S = 30.0  # a bound so a pool that never fills fails the bench instead of hanging it


def wait_for_ready_pool() -> None:
    """Untimed: until the pool of ready sandboxes holds one (no-op where e2beval has no pool, or it is off:
    E2BEVAL_SESSION_POOL=0 measures every sandbox started for its create())."""
    if os.environ.get("E2BEVAL_SESSION_POOL") == "0":
        return
    try:
        from e2beval.sandbox import ready_sandbox_pids
    except ImportError:
        return
    deadline = time.monotonic() + POOL_WAIT_S
    while not ready_sandbox_pids():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the pool of ready sandboxes held none after {POOL_WAIT_S:.0f} s "
                               "(is E2BEVAL_SESSION_POOL=0 set?)")
        time.sleep(0.005)


def plain_start(python: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([python, "-c", CELL], capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"baseline python3 -c '1+1' exited {done.returncode}: {done.stderr[-300:]}")
    return wall


def create_and_first_cell(sandbox_class: Any, isolation: Dict[str, Any]) -> tuple[float, float]:
    """(seconds to create, seconds for the first run_code) of one new sandbox, which is then killed."""
    started = time.perf_counter()
    sandbox = sandbox_class.create(isolation=isolation)
    created = time.perf_counter()
    try:
        execution = sandbox.run_code(CELL)
        answered = time.perf_counter()
        if execution.error is not None or execution.text != "2":
            raise RuntimeError(f"run_code('1+1') gave text {execution.text!r}, error {execution.error!r}, "
                               f"stderr {''.join(execution.logs.stderr)[-300:]!r}")
    finally:
        sandbox.kill()
    return created - started, answered - created


def main() -> int:
    args = bl.parse_args(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--sessions", type=int, default=45, help="sandboxes created, and baseline starts (default 45)"),
            p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; samples are pooled"),
        ),
    )
    report = bl.Report("session", args.json)
    import e2beval
    from e2beval.sandbox import Sandbox

    python = bl.plain_python()
    isolation = {"minimum_level": args.min_isolation}
    rounds = max(1, args.rounds)
    per_round = -(-args.sessions // rounds)
    report.say(f"session: Sandbox.create() + run_code({CELL!r}), {per_round * rounds} sandboxes in {rounds} interleaved "
               f"rounds; baseline {python} -c {CELL!r}; isolation >= {args.min_isolation}")
    create: List[float] = []
    first: List[float] = []
    total: List[float] = []
    back_to_back: List[float] = []
    plain: List[float] = []
    try:
        with bl.ContentionMonitor() as monitor:
            create_and_first_cell(Sandbox, isolation)  # untimed: page the agent in, fail early
            plain_start(python)
            for index in range(rounds):
                for _ in range(per_round):
                    plain.append(plain_start(python))
                    wait_for_ready_pool()
                    created, answered = create_and_first_cell(Sandbox, isolation)
                    create.append(created)
                    first.append(answered)
                    total.append(created + answered)
                    back_to_back.append(sum(create_and_first_cell(Sandbox, isolation)))
                report.say(f"  round {index + 1}: p50 create + first {bl.ms(bl.percentile(total, 50))} (create "
                           f"{bl.ms(bl.percentile(create, 50))}, first run_code {bl.ms(bl.percentile(first, 50))}); "
                           f"back to back {bl.ms(bl.percentile(back_to_back, 50))}; python3 {bl.ms(bl.percentile(plain, 50))}")
    except (RuntimeError, e2beval.Error) as error:
        report.error = str(error)
        report.say(f"session: FAILED: {error}")
        return report.finish()

    report.contention = monitor.result
    report.say("session: " + monitor.describe())
    report.raw = {"create_s": create, "first_run_code_s": first, "back_to_back_s": back_to_back, "plain_s": plain}
    base = bl.percentile(plain, 50)
    baseline = f"python3 {bl.ms(base)}"
    value = bl.percentile(total, 50)
    report.row(f"p50, create + first run_code, pool ready (n={len(total)})", bl.ms(value), baseline, bl.times(value / base),
               "<= 15 ms", value * 1e3 <= 15)
    for figure, samples in (("p50, Sandbox.create()", create), ("p50, first run_code('1+1')", first),
                            ("p50, create + first run_code, back to back", back_to_back)):
        part = bl.percentile(samples, 50)
        report.row(figure, bl.ms(part), baseline, bl.times(part / base), "(info)")
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

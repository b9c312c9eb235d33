#!/usr/bin/env python3
"""Java and TypeScript per program: e2beval (compile + run, compile cache off, resident compilers on) against the
reference judge's plain `javac` + `java` and `tsc` + `node` in a temporary directory with no isolation
(bench/reference_judge.py), over the first rows of the shared MultiPL-E HumanEval files, assembled as
`e2beval eval --multipl-e` assembles them (e2beval.assemble_multipl_e). Issue 35's target: e2beval >= 2x faster.

    source scripts/env.sh
    python bench/resident_compile_bench.py                 # 40 rows of each, resident on
    python bench/resident_compile_bench.py --rows 10 --cold   # also e2beval with the resident compilers off

The two sides alternate program by program in one process, one program at a time, so a busy machine slows
both alike; the ratio is the sum of the reference's wall times over the sum of e2beval's. e2beval's sum
includes the resident service's start (the first compile of each language pays it). It also prints the
verdicts that differ (there should be none).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_judge  # noqa: E402

import e2beval  # noqa: E402

FILES = {"java": "java", "typescript": "ts"}


def rows_of(language: str, count: int, dataset_dir: Path) -> list:
    rows = []
    with gzip.open(dataset_dir / f"humaneval-{FILES[language]}.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            rows.append(json.loads(line))
            if len(rows) == count:
                break
    return rows


def e2beval_side(program: dict, language: str, resident: bool) -> tuple[float, str]:
    os.environ["E2BEVAL_RESIDENT_COMPILERS"] = "1" if resident else "0"
    started = time.monotonic()
    # MultiPL-E's run limits as `e2beval eval --multipl-e` gives them: 15 s, 2 GiB for the JVM's and node's heaps.
    result = e2beval.execute(program["source"], language=language,
                             limits={"wall_time_s": reference_judge.RUN_TIMEOUT[language], "memory_mb": 2048})
    return time.monotonic() - started, result["outcome"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--languages", nargs="+", default=list(FILES), choices=list(FILES))
    parser.add_argument("--dataset-dir", type=Path, default=reference_judge.DATASET_DIR)
    parser.add_argument("--cold", action="store_true", help="also time e2beval with E2BEVAL_RESIDENT_COMPILERS=0")
    args = parser.parse_args()
    os.environ["E2BEVAL_COMPILE_CACHE_BYTES"] = "0"  # every program is compiled
    tools = reference_judge.Toolchains(args.languages)
    print(f"{'language':<11} {'rows':>4} {'reference s':>12} {'e2beval s':>10} {'ratio':>6} {'median ref/e2b':>15}"
          + (f" {'cold e2beval s':>15} {'cold ratio':>10}" if args.cold else ""))
    for language in args.languages:
        reference, resident, cold, ratios, differ = [], [], [], [], []
        for row in rows_of(language, args.rows, args.dataset_dir):
            program = e2beval.assemble_multipl_e(row, row["gpt_solution"], "auto")
            started = time.monotonic()
            verdict = reference_judge.judge(program, tools)
            reference.append(time.monotonic() - started)
            seconds, outcome = e2beval_side(program, language, True)
            resident.append(seconds)
            ratios.append(reference[-1] / seconds)
            if (outcome == "ok") != (verdict["outcome"] == "ok"):
                differ.append(f"{row['name']}: e2beval {outcome}, reference {verdict['outcome']}")
            if args.cold:
                cold.append(e2beval_side(program, language, False)[0])
            print(f"\r{language} {len(reference)}/{args.rows}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        line = (f"{language:<11} {len(reference):>4} {sum(reference):>12.1f} {sum(resident):>10.1f} "
                f"{sum(reference) / sum(resident):>5.2f}x {statistics.median(ratios):>14.2f}x")
        if args.cold:
            line += f" {sum(cold):>15.1f} {sum(reference) / sum(cold):>9.2f}x"
        print(line, flush=True)
        for text in differ:
            print(f"  verdict differs: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

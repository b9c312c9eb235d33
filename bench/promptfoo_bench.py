"""Per-assertion cost under real promptfoo: `promptfoo eval` of 50 recorded answers graded by e2beval's
assertion against the same 50 graded by a Python assertion that returns True (and, to take promptfoo's own
fixed cost out, the same 50 with a built-in `contains` assertion that starts no Python at all).

Usage: .venv/bin/python bench/promptfoo_bench.py [--rounds N] [--concurrency N] [--keep DIR] [--json]
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import benchlib as bl

CASES = 50

E2BEVAL_ASSERT = "from e2beval.promptfoo import get_assert  # noqa: F401\n"
TRIVIAL_ASSERT = "def get_assert(output, context):\n    return True\n"


def cases() -> List[Dict[str, Any]]:
    """50 recorded correct answers: 5 small functions x 10 variants, each with prose and a fenced block."""
    made = []
    for k in range(1, 11):
        made.append(("add_%d" % k, "def add_%d(x):\n    return x + %d\n" % (k, k), "10", str(10 + k)))
        made.append(("times_%d" % k, "def times_%d(x):\n    return x * %d\n" % (k, k), "7", str(7 * k)))
        made.append(("repeat_%d" % k, "def repeat_%d(s):\n    return s * %d\n" % (k, k), "'ab'", "ab" * k))
        made.append(
            ("triangle", "def triangle(n):\n    total = 0\n    for i in range(n + 1):\n        total += i\n    return total\n",
             str(k * 3), str(sum(range(k * 3 + 1))))
        )
        made.append(
            ("factorial", "import math\n\n\ndef factorial(n):\n    if n < 0:\n        raise ValueError(n)\n    return math.prod(range(1, n + 1))\n",
             str(k), str(math.factorial(k)))
        )
    tests = []
    for index, (name, code, test_input, expected) in enumerate(made[:CASES]):
        completion = f"Here is `{name}`:\n\n```python\n{code}```\n\nIt runs in O(n) or better.\n"
        tests.append(
            {
                "description": f"case {index + 1}: {name}({test_input}) -> {expected}",
                "vars": {"function_name": name, "test_input": test_input, "expected_output": expected, "completion": completion},
            }
        )
    return tests


def write_config(directory: Path, name: str, assertion: Dict[str, Any], tests: List[Dict[str, Any]]) -> Path:
    # JSON is valid YAML, and promptfoo reads .json configs too: no YAML library needed here.
    config = {
        "description": f"e2beval bench: {name}",
        "prompts": ["file://prompt.txt"],
        "providers": [{"id": "echo", "label": "recorded"}],
        "defaultTest": {"assert": [assertion]},
        "tests": tests,
    }
    path = directory / f"{name}.json"
    path.write_text(json.dumps(config, indent=1))
    return path


def run_promptfoo(config: Path, workdir: Path, concurrency: int, tag: str) -> Tuple[float, Dict[str, Any]]:
    output = workdir / f"out-{tag}.json"
    env = dict(os.environ)
    env.update(
        PATH=f"{bl.PROMPTFOO_BIN}:{env.get('PATH', '')}",
        PROMPTFOO_PYTHON=str(bl.VENV_BIN / "python"),
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_CONFIG_DIR=str(workdir / "promptfoo-home"),
        PROMPTFOO_RESULTS_DIR=str(workdir / "results"),
    )
    command = [
        str(bl.PROMPTFOO_BIN / "promptfoo"), "eval", "-c", str(config), "--no-cache", "--no-share",
        "--no-progress-bar", "--no-write", "-j", str(concurrency), "-o", str(output),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=workdir, env=env)
    wall = time.perf_counter() - started
    if not output.exists():
        raise RuntimeError(f"promptfoo ({tag}) exited {done.returncode} without {output.name}: "
                           f"{(done.stderr or done.stdout).strip()[-600:]}")
    results = json.loads(output.read_text())["results"]
    stats = results.get("stats", {})
    failed = [r for r in results.get("results", []) if not r.get("success")]
    if done.returncode != 0 or stats.get("successes") != CASES or failed:
        first = failed[0] if failed else {}
        reason = (first.get("gradingResult") or {}).get("reason") or first.get("error")
        raise RuntimeError(
            f"promptfoo ({tag}) exited {done.returncode}: {stats.get('successes')} of {CASES} passed, "
            f"{stats.get('failures')} failed, {stats.get('errors')} errors; first: {first.get('description') or ''} {reason!r}"
        )
    output.unlink()
    return wall, stats


def main() -> int:
    args = bl.parse_args(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--rounds", type=int, default=3, help="interleaved runs of each config (median reported)"),
            p.add_argument("--concurrency", type=int, default=4, help="promptfoo -j for every config (default 4, promptfoo's own)"),
            p.add_argument("--keep", help="write the generated configs into DIR and keep them"),
        ),
    )
    report = bl.Report("promptfoo", args.json)
    bl.require(bl.PROMPTFOO_BIN / "promptfoo", "promptfoo")
    bl.require(bl.VENV_BIN / "python", "the project's .venv")
    tests = cases()
    configs = ("none", "trivial", "e2beval")
    walls: Dict[str, List[float]] = {name: [] for name in configs}
    report.say(f"promptfoo: {CASES} recorded answers, echo provider, -j {args.concurrency}, {args.rounds} interleaved rounds; "
               f"assertions: e2beval (isolation >= {args.min_isolation}), python returning True, built-in contains")

    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="e2beval-bench-promptfoo-"))
    try:
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "prompt.txt").write_text("{{completion}}")
        (workdir / "e2beval_assert.py").write_text(E2BEVAL_ASSERT)
        (workdir / "trivial_assert.py").write_text(TRIVIAL_ASSERT)
        paths = {
            "e2beval": write_config(
                workdir, "e2beval",
                {"type": "python", "value": "file://e2beval_assert.py",
                 "config": {"isolation": {"minimum_level": args.min_isolation}}},
                tests,
            ),
            "trivial": write_config(workdir, "trivial", {"type": "python", "value": "file://trivial_assert.py"}, tests),
            "none": write_config(workdir, "none", {"type": "contains", "value": "```python"}, tests),
        }
        with bl.ContentionMonitor() as monitor:
            run_promptfoo(paths["trivial"], workdir, args.concurrency, "warm-up")  # untimed: page node and promptfoo in
            for index in range(max(1, args.rounds)):
                for name in configs:
                    wall, _ = run_promptfoo(paths[name], workdir, args.concurrency, name)
                    walls[name].append(wall)
                report.say(f"  round {index + 1}: " + ", ".join(f"{n} {bl.secs(walls[n][-1])}" for n in configs))
    except RuntimeError as error:
        report.error = str(error)
        report.say(f"promptfoo: FAILED: {error}")
        return report.finish()
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    report.contention = monitor.result
    report.say("promptfoo: " + monitor.describe())
    none, trivial, e2b = (bl.median(walls[n]) for n in configs)
    # what one assertion adds over promptfoo's fixed cost (node start, config, 50 echo calls)
    trivial_each = (trivial - none) / CASES
    e2b_each = (e2b - none) / CASES
    report.say(f"promptfoo: medians: no python {bl.secs(none)}, trivial {bl.secs(trivial)}, e2beval {bl.secs(e2b)}; "
               f"per assertion over the no-python run: trivial {bl.ms(trivial_each)}, e2beval {bl.ms(e2b_each)}")
    report.raw = {"wall_s": walls, "cases": CASES, "concurrency": args.concurrency}
    report.row(f"eval wall, {CASES} cases", bl.secs(e2b), f"trivial {bl.secs(trivial)}", bl.times(e2b / trivial), "(info)")
    if trivial_each > 0:
        ratio = e2b_each / trivial_each
        report.row("per-assertion cost vs a trivial Python assertion", bl.ms(e2b_each), f"trivial {bl.ms(trivial_each)}",
                   bl.times(ratio), "<= 1.3x", ratio <= 1.3)
    else:
        report.row("per-assertion cost vs a trivial Python assertion", bl.ms(e2b_each), f"trivial {bl.ms(trivial_each)}", "-", "<= 1.3x",
                   None)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

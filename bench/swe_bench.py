"""One SWE instance end to end (issue 18): copy the repository in, apply the test patch and the model's patch,
run the tests, grade — in an e2beval sandbox (e2beval.swe.evaluate_patch) against the same steps on the host
with no isolation, median of interleaved runs, as a ratio.

The instance is the toolz fixture (scripts/swe_fixtures.py: toolz 0.12.1 from PyPI with a deliberate bug) and
its good patch. The host baseline does what the evaluation does, with the same tools and the same test
command, in a temporary directory: `git archive` of the base commit unpacked, `git init/add/commit`,
`git apply` of the patch, `git diff`, pytest with -rA, and the same grading (every FAIL_TO_PASS and
PASS_TO_PASS test passed) from pytest's -rA lines. It has none of e2beval's guards (no sandbox, no limits, no
path checks, no report at a private path), which is what the ratio prices.

Usage: .venv/bin/python bench/swe_bench.py [--rounds N] [--json]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List

import benchlib as bl

ROOT = Path(__file__).resolve().parent.parent
INSTANCE_ID = "toolz__interpose-frequencies"


def fixtures():
    subprocess.run([sys.executable, str(ROOT / "scripts" / "swe_fixtures.py")], check=True, stdout=subprocess.DEVNULL)
    from e2beval import swe

    out = ROOT / "build" / "swe-fixtures"
    instance = next(i for i in swe.read_jsonl(str(out / "instances.jsonl")) if i["instance_id"] == INSTANCE_ID)
    patch = next(p["model_patch"] for p in swe.read_jsonl(str(out / "predictions.jsonl"))
                 if p["instance_id"] == INSTANCE_ID and p["model_name_or_path"] == "good")
    return instance, patch


def on_host(instance: dict, patch: str) -> bool:
    """The evaluation's steps on the host, unisolated; True when the instance is resolved."""
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "PYTHONDONTWRITEBYTECODE": "1",
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    with tempfile.TemporaryDirectory() as work:
        repo = Path(work) / "repo"
        repo.mkdir()
        source = instance["repo"]
        if source.endswith(".bundle"):
            subprocess.run(["git", "clone", "-q", "--no-checkout", source, f"{work}/clone"], check=True, env=env)
            source = f"{work}/clone"
        tree = subprocess.run(["git", "-C", source, "archive", "--format=tar", instance["base_commit"]], check=True,
                              capture_output=True, env=env).stdout
        subprocess.run(["tar", "-x", "-C", str(repo)], input=tree, check=True)
        for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
            subprocess.run(git + step, cwd=repo, check=True, env=env)
        (Path(work) / "model.patch").write_text(patch)
        subprocess.run(git + ["apply", "--verbose", f"{work}/model.patch"], cwd=repo, check=True, env=env, capture_output=True)
        subprocess.run(git + ["add", "-A"], cwd=repo, check=True, env=env)
        subprocess.run(git + ["diff", "--cached", "HEAD"], cwd=repo, check=True, env=env, capture_output=True)
        files = sorted({t.split("::")[0] for t in instance["FAIL_TO_PASS"] + instance["PASS_TO_PASS"]})
        log = subprocess.run(f"{instance['test_cmd']} {' '.join(files)} 2>&1", shell=True, cwd=repo, env=env,
                             capture_output=True, text=True).stdout
        passed = {m.group(1) for m in re.finditer(r"^PASSED (\S+)", log, re.M)}
        return all(t in passed for t in instance["FAIL_TO_PASS"] + instance["PASS_TO_PASS"])


def in_sandbox(instance: dict, patch: str) -> bool:
    from e2beval import swe

    verdict = swe.evaluate_patch(instance, patch, protect_tests=True)
    if verdict["status"] == "error":
        raise RuntimeError(verdict["error"])
    return verdict["status"] == "resolved"


def main() -> int:
    args = bl.parse_args(__doc__.splitlines()[0],
                         lambda p: p.add_argument("--rounds", type=int, default=7, help="interleaved runs of each (default 7)"))
    report = bl.Report("swe", args.json)
    instance, patch = fixtures()
    report.say(f"swe: {INSTANCE_ID} with its good patch, end to end; e2beval sandbox vs the same steps on the host; "
               f"{args.rounds} interleaved rounds")
    sandboxed: List[float] = []
    host: List[float] = []
    try:
        with bl.ContentionMonitor() as monitor:
            in_sandbox(instance, patch)  # untimed: the first session start pages everything in
            on_host(instance, patch)
            for index in range(max(1, args.rounds)):
                started = time.perf_counter()
                if not in_sandbox(instance, patch):
                    raise RuntimeError("the good patch did not resolve the instance in the sandbox")
                sandboxed.append(time.perf_counter() - started)
                started = time.perf_counter()
                if not on_host(instance, patch):
                    raise RuntimeError("the good patch did not resolve the instance on the host")
                host.append(time.perf_counter() - started)
                report.say(f"  round {index + 1}: e2beval {bl.secs(sandboxed[-1])}, host {bl.secs(host[-1])}")
        report.contention = monitor.result
    except Exception as failure:  # a bench fails only when what it measures is wrong
        report.error = str(failure)
        return report.finish()
    value, base = bl.median(sandboxed), bl.median(host)
    report.raw = {"e2beval_s": sandboxed, "host_s": host}
    report.row(f"median, one instance end to end (n={len(sandboxed)})", bl.secs(value), f"host, no isolation {bl.secs(base)}",
               bl.times(value / base), "(info)")
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

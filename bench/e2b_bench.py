"""HumanEval-164 (canonical solutions) on `--backend e2b` against a local `e2beval serve`, versus the local
backend, in the same run: wall time, throughput, and the requests per sample the E2B client needed.
Usage: python bench/e2b_bench.py [--jobs 16]  (source scripts/env.sh first)."""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "serve"))
from conftest import ServeProcess  # noqa: E402

DATASET = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "HumanEval.jsonl.gz"


def humaneval(backend, jobs, env):
    done = subprocess.run(["e2beval", "eval", "--backend", backend, "--jobs", str(jobs), "--humaneval", str(DATASET), "--json", "--no-metrics"],
                          capture_output=True, text=True, env=env, timeout=900)
    if done.returncode not in (0, 1):  # 1: some samples failed, still a measurement
        raise SystemExit(f"{backend}: exit {done.returncode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=16)
    jobs = parser.parse_args().jobs
    local = humaneval("local", jobs, dict(os.environ))
    # --bare-code-interpreter: HumanEval needs no packages, and the local side runs in the default environment too.
    server = ServeProcess("--max-sandboxes", str(jobs + 4), "--creation-rate", "100", "--ready-sandboxes", str(jobs),
                          "--bare-code-interpreter")
    try:
        env = {**os.environ, **server.env, "E2BEVAL_E2B_CREATION_RATE": "100", "E2BEVAL_E2B_MAX_SANDBOXES": str(jobs)}
        remote = humaneval("e2b", jobs, env)
    finally:
        server.stop()
    for name, report in (("local", local), ("e2b vs serve", remote)):
        seconds = report["wall_time_s"]
        print(f"{name:14} {report['passed']}/{report['total']} passed  {seconds:7.2f} s  {report['total'] / seconds:7.1f} samples/s")
    counters = remote["e2b"]
    print(f"e2b client: {counters['requests']} requests ({counters['requests'] / remote['total']:.2f} per sample), "
          f"{counters['retries']} retries, {counters['connections']} connections, {counters['sandboxes_created']} sandboxes")
    print(f"ratio e2b/local wall time: {remote['wall_time_s'] / local['wall_time_s']:.2f}")


if __name__ == "__main__":
    main()

"""What compiling the glue at -O1 (E2BEVAL_GLUE_OPTIMIZATION, CMakeLists.txt) costs at run time: the CLI built
twice from this checkout, once with the glue at -O1 (the default) and once all at -O2 (the baseline), each running
HumanEval's 164 canonical solutions through its own E2B client (`e2beval eval --backend e2b`) against its own
`e2beval serve`, so that every sample crosses the runner, the E2B client, the server and the sandbox, and then on
the local backend (the runner around local sandboxes).

The rounds alternate between the two builds (so a burst of load hits both); per build the median over the rounds
of: the run's wall time, the CPU time of the server process itself (its sandboxes, its children, are not counted:
they run the same -O2 sandbox code in both builds) and the CPU time of the client process. The ratio is
-O1 / -O2: 1.00 means no difference; the issue's question (34) is whether it shows at all.

The trees go in build/glue-bench/{o1,o2} (ccache applies; the first run compiles the CLI twice, a few minutes on
2 cores). Usage: .venv/bin/python bench/glue_optimization_bench.py [--rounds 3] [--jobs 8] [--json]
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import time
from pathlib import Path
from typing import Dict, List

import benchlib as bl

DATASET = bl.REPO_ROOT.parent / "shared" / "datasets" / "HumanEval.jsonl.gz"
TREES = bl.REPO_ROOT / "build" / "glue-bench"
BUILDS = {"-O1 glue": "-O1", "all -O2": ""}  # the value of E2BEVAL_GLUE_OPTIMIZATION; empty: the build type's -O2
TICKS = os.sysconf("SC_CLK_TCK")


def build_cli(name: str, optimization: str, report: bl.Report) -> Path:
    tree = TREES / ("o1" if optimization else "o2")
    configure = ["cmake", "-S", str(bl.REPO_ROOT), "-B", str(tree), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 "-DE2BEVAL_DEBUG_INFO=none", "-DE2BEVAL_BUILD_PYTHON=OFF", "-DE2BEVAL_BUILD_TESTS=OFF",
                 "-DE2BEVAL_BUILD_CLI=ON", "-DE2BEVAL_INSTALL=OFF", f"-DE2BEVAL_GLUE_OPTIMIZATION={optimization}"]
    report.say(f"  building the CLI with {name} in {tree.relative_to(bl.REPO_ROOT)}")
    for command in (configure, ["cmake", "--build", str(tree), "--target", "e2beval_cli"]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:3])} failed: {(done.stdout + done.stderr)[-1500:]}")
    return tree / "e2beval"


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of the process itself (fields 14 and 15 of /proc/PID/stat), not of its children."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def one_run(cli: Path, jobs: int) -> Dict[str, float]:
    server = subprocess.Popen([str(cli), "serve", "--port", "0", "--max-sandboxes", str(jobs + 4), "--creation-rate", "1000",
                               "--ready-sandboxes", str(jobs), "--bare-code-interpreter"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        env = dict(os.environ, E2BEVAL_E2B_CREATION_RATE="1000", E2BEVAL_E2B_MAX_SANDBOXES=str(jobs))
        while not {"E2B_API_URL", "E2B_SANDBOX_URL", "E2B_API_KEY"} <= env.keys():
            line = server.stdout.readline()
            if not line:
                raise RuntimeError("e2beval serve ended before printing its export lines: " + server.stderr.read()[-800:])
            name, _, value = line.strip().removeprefix("export ").partition("=")
            env[name] = value
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([str(cli), "eval", "--backend", "e2b", "--jobs", str(jobs), "--humaneval", str(DATASET),
                               "--json", "--no-metrics"], capture_output=True, text=True, env=env, timeout=900)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"`e2beval eval --backend e2b` exited {done.returncode}: {done.stderr[-800:]}")
        verdicts = json.loads(done.stdout)
        if verdicts["passed"] != verdicts["total"]:
            raise RuntimeError(f"{verdicts['total'] - verdicts['passed']} canonical solutions failed: a wrong measurement")
        server_cpu = process_cpu_seconds(server.pid)
        client_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)
    # The local backend: the runner and the batch (src/eval, glue) around local sandboxes (src/local, -O2 in both).
    started = time.perf_counter()
    done = subprocess.run([str(cli), "eval", "--jobs", str(jobs), "--humaneval", str(DATASET), "--json", "--no-metrics"],
                          capture_output=True, text=True, timeout=900)
    local_wall = time.perf_counter() - started
    if done.returncode != 0 or json.loads(done.stdout)["passed"] != 164:
        raise RuntimeError(f"`e2beval eval` (local) exited {done.returncode} or failed a canonical solution: {done.stderr[-800:]}")
    return {"wall_s": wall, "server_cpu_s": server_cpu, "client_cpu_s": client_cpu, "local_wall_s": local_wall}


def main() -> int:
    args = bl.parse_args(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--rounds", type=int, default=3, help="runs of each build, alternating (default 3)"),
            p.add_argument("--jobs", type=int, default=8, help="samples at once (default 8)"),
        ),
    )
    report = bl.Report("glue-optimization", args.json)
    bl.require(DATASET, "HumanEval (../shared/datasets)")
    report.say(f"glue optimisation: HumanEval-164 canonical through the E2B client and `e2beval serve`, {args.rounds} "
               f"rounds per build, {args.jobs} at once")
    samples: Dict[str, List[Dict[str, float]]] = {name: [] for name in BUILDS}
    try:
        clis = {name: build_cli(name, optimization, report) for name, optimization in BUILDS.items()}
        with bl.ContentionMonitor() as monitor:
            for name in BUILDS:  # untimed: page the binaries in, fail early
                one_run(clis[name], args.jobs)
            for round_number in range(args.rounds):
                for name in (BUILDS if round_number % 2 == 0 else reversed(list(BUILDS))):
                    samples[name].append(one_run(clis[name], args.jobs))
                    figures = samples[name][-1]
                    report.say(f"  round {round_number + 1}, {name}: via serve {bl.secs(figures['wall_s'])}, server CPU "
                               f"{bl.secs(figures['server_cpu_s'])}, client CPU {bl.secs(figures['client_cpu_s'])}; "
                               f"local {bl.secs(figures['local_wall_s'])}")
    except RuntimeError as error:
        report.error = str(error)
        return report.finish()
    report.contention = monitor.result
    report.say("glue-optimization: " + monitor.describe())
    report.raw = samples
    o1, o2 = samples["-O1 glue"], samples["all -O2"]
    for key, figure in (("wall_s", "HumanEval via serve, wall"), ("server_cpu_s", "serve process CPU"),
                        ("client_cpu_s", "E2B client process CPU"), ("local_wall_s", "HumanEval local, wall")):
        with_o1, with_o2 = bl.median([s[key] for s in o1]), bl.median([s[key] for s in o2])
        report.row(f"{figure} (-O1 / -O2)", bl.secs(with_o1), f"-O2 {bl.secs(with_o2)}", bl.times(with_o1 / with_o2),
                   "(info)")
    return report.finish()


if __name__ == "__main__":
    raise SystemExit(main())

"""A cold e2beval sandbox against bubblewrap (issue 14), measured in the same run: `execute("print(1)",
pool=False)` p50 against `bwrap ... python3 -c 'print(1)'` p50, and `e2beval run one.py` as a whole process
against bwrap running the same file as a whole process; a plain `python3 -c 'print(1)'` for reference.

bwrap is the one Debian's `bubblewrap` package installs (bash bench/setup_bwrap.sh, which run_all.sh calls);
when it is missing or cannot run here, its rows say so (`n/a (bubblewrap not installed: ...)`) and the
e2beval figures are still shown.

Usage: .venv/bin/python bench/bwrap_bench.py [--starts N] [--runs N] [--rounds N] [--json]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import benchlib as bl

PROGRAM = "print(1)"
# run_all.sh puts here why bench/setup_bwrap.sh could not install bubblewrap
MISSING_ENV = "E2BEVAL_BENCH_BWRAP_MISSING"


def python_prefix(python: str) -> str:
    """Where the interpreter's standard library lives (a pyenv or /usr/local prefix must be bound too)."""
    return subprocess.run([python, "-c", "import sys; print(sys.base_prefix)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def bwrap_argv(bwrap: str, python: str, prefix: str, script_dir: str) -> List[str]:
    """The issue's bubblewrap: every namespace (--unshare-all: user (tried), ipc, pid, net, uts, cgroup),
    dies with its parent, read-only /usr and the interpreter's prefix, fresh /proc, /dev and /tmp.

    Debian 12 has a merged /usr: /bin, /lib, /lib64 and /sbin are symlinks into /usr, so they are made the
    same symlinks inside (the dynamic loader is /lib64/ld-linux-x86-64.so.2). The directory holding one.py
    is bound read-only at /code, as `e2beval run` gives the program its file. As root on this host (Debian 12,
    kernel 6.x) this runs as is: no setuid bwrap, no --unshare-user-try beyond what --unshare-all implies.
    """
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr"]
    for top in ("bin", "lib", "lib64", "sbin"):
        path = Path("/") / top
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
    if prefix != "/usr" and not prefix.startswith("/usr/"):
        argv += ["--ro-bind", prefix, prefix]
    python_dir = str(Path(python).parent)
    if not python_dir.startswith(prefix) and not python_dir.startswith("/usr/"):
        argv += ["--ro-bind", python_dir, python_dir]  # an interpreter outside its own prefix (rare)
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", script_dir, "/code", "--chdir", "/code"]
    return argv


def find_bwrap(python: str, prefix: str, script_dir: str) -> tuple[Optional[List[str]], str]:
    """(bwrap argv prefix, "") when bwrap is installed and runs python here, else (None, why not)."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        why = os.environ.get(MISSING_ENV) or "bwrap not on PATH; `bash bench/setup_bwrap.sh` installs it"
        return None, f"n/a (bubblewrap not installed: {why})"
    argv = bwrap_argv(bwrap, python, prefix, script_dir)
    probe = subprocess.run(argv + [python, "-c", PROGRAM], capture_output=True, text=True)
    if probe.returncode != 0 or probe.stdout != "1\n":
        why = (probe.stderr.strip().splitlines() or [f"exit {probe.returncode}"])[-1][:100]
        return None, f"n/a (bwrap cannot run here: {why})"
    return argv, ""


def timed(argv: List[str], what: str, env: Optional[Dict[str, str]] = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if done.returncode != 0 or done.stdout != "1\n":
        raise RuntimeError(f"{what}: exited {done.returncode}, stdout {done.stdout[:80]!r}, stderr {done.stderr[-300:]!r}")
    return wall


def e2beval_cold(e2beval: Any, options: Dict[str, Any]) -> float:
    started = time.perf_counter()
    result = e2beval.execute(PROGRAM, **options)
    wall = time.perf_counter() - started
    if result.get("outcome") != "ok" or result.get("stdout") != "1\n":
        raise RuntimeError(f"e2beval cold: print(1) gave outcome {result.get('outcome')!r}, stdout {result.get('stdout')!r}, "
                           f"detail {result.get('detail')!r}")
    return wall


def main() -> int:
    args = bl.parse_args(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--starts", type=int, default=60,
                           help="cold starts per contender for the p50s (default 60)"),
            p.add_argument("--runs", type=int, default=30,
                           help="whole processes per contender: e2beval run, bwrap (default 30)"),
            p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; samples are pooled"),
        ),
    )
    report = bl.Report("bwrap", args.json)
    bl.require(bl.E2BEVAL_CLI, "the e2beval command")
    import e2beval

    python = bl.plain_python()
    prefix = python_prefix(python)
    rounds = max(1, args.rounds)
    cold_options: Dict[str, Any] = {"isolation": {"minimum_level": args.min_isolation}}
    if bl.module_supports_pool(e2beval):
        cold_options["pool"] = False
    samples: Dict[str, List[float]] = {"plain": [], "bwrap": [], "cold": [], "run": [], "bwrap_run": []}

    with tempfile.TemporaryDirectory(prefix="e2beval-bench-bwrap-") as script_dir:
        script = Path(script_dir) / "one.py"
        script.write_text(PROGRAM + "\n")
        os.chmod(script_dir, 0o755)  # bwrap's and the sandbox's view of it, whoever they run as
        bwrap, missing = find_bwrap(python, prefix, script_dir)
        report.say(f"bwrap: print(1); bwrap {' '.join(bwrap) if bwrap else missing}; interpreter {python} "
                   f"(prefix {prefix}); e2beval isolation >= {args.min_isolation}; {rounds} interleaved rounds")
        # `e2beval run` resolves python3 as a user's call does (no --python): finding the interpreter is part
        # of what a whole process costs (issue 14: it re-discovered it on every call).
        run_argv = [str(bl.E2BEVAL_CLI), "run", "--min-isolation", args.min_isolation, str(script)]
        try:
            with bl.ContentionMonitor() as monitor:
                # untimed: page everything in, and fail early when a contender does not print 1
                timed([python, "-c", PROGRAM], "python3 -c")
                e2beval_cold(e2beval, cold_options)
                timed(run_argv, "e2beval run one.py")
                if bwrap:
                    timed(bwrap + [python, "one.py"], "bwrap python3 one.py")
                starts, runs = -(-args.starts // rounds), -(-args.runs // rounds)
                for index in range(rounds):
                    for _ in range(starts):
                        samples["plain"].append(timed([python, "-c", PROGRAM], "python3 -c"))
                        samples["cold"].append(e2beval_cold(e2beval, cold_options))
                        if bwrap:
                            samples["bwrap"].append(timed(bwrap + [python, "-c", PROGRAM], "bwrap python3 -c"))
                    for _ in range(runs):
                        samples["run"].append(timed(run_argv, "e2beval run one.py"))
                        if bwrap:
                            samples["bwrap_run"].append(timed(bwrap + [python, "one.py"], "bwrap python3 one.py"))
                    report.say(
                        f"  round {index + 1}: p50 plain {bl.ms(bl.median(samples['plain']))}, "
                        f"e2beval cold {bl.ms(bl.median(samples['cold']))}"
                        + (f", bwrap {bl.ms(bl.median(samples['bwrap']))}" if bwrap else "")
                        + f"; whole process: e2beval run {bl.ms(bl.median(samples['run']))}"
                        + (f", bwrap {bl.ms(bl.median(samples['bwrap_run']))}" if bwrap else "")
                    )
        except (RuntimeError, e2beval.Error) as error:
            report.error = str(error)
            report.say(f"bwrap: FAILED: {error}")
            return report.finish()

    report.contention = monitor.result
    report.say("bwrap: " + monitor.describe())
    report.raw = {"wall_s": samples, "bwrap_argv": bwrap, "bwrap_missing": missing or None}

    plain = bl.percentile(samples["plain"], 50)
    cold = bl.percentile(samples["cold"], 50)
    run = bl.median(samples["run"])
    if bwrap:
        bwrap_p50 = bl.percentile(samples["bwrap"], 50)
        bwrap_run = bl.median(samples["bwrap_run"])
        report.row(f"p50, bwrap python3 -c (n={len(samples['bwrap'])})", bl.ms(bwrap_p50), f"python3 {bl.ms(plain)}",
                   bl.times(bwrap_p50 / plain), "(info)")
        report.row(f"p50, e2beval cold / bwrap (n={len(samples['cold'])})", bl.ms(cold), f"bwrap {bl.ms(bwrap_p50)}",
                   bl.times(cold / bwrap_p50), "<= 1x", cold <= bwrap_p50)
        report.row(f"whole process: e2beval run one.py / bwrap (n={len(samples['run'])})", bl.ms(run),
                   f"bwrap {bl.ms(bwrap_run)}", bl.times(run / bwrap_run), "<= 1.3x", run / bwrap_run <= 1.3)
    else:
        report.row("p50, bwrap python3 -c", missing, f"python3 {bl.ms(plain)}", target="(info)")
        report.row(f"p50, e2beval cold / bwrap (n={len(samples['cold'])})", bl.ms(cold), missing, target="<= 1x")
        report.row(f"whole process: e2beval run one.py / bwrap (n={len(samples['run'])})", bl.ms(run), missing,
                   target="<= 1.3x")
    report.row(f"p50, e2beval cold / python3 -c (n={len(samples['cold'])})", bl.ms(cold), f"python3 {bl.ms(plain)}",
               bl.times(cold / plain), "(info)")
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

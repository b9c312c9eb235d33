"""What every e2beval benchmark shares: finding the tools and the dataset, statistics, CPU-contention
accounting, and the result rows that bench/run_all.sh turns into one table.

Each bench prints readable lines; with --json they go to stderr and one JSON object goes to stdout:
{"bench", "ok", "error", "contention", "rows": [{figure, value, baseline, ratio, target, met}], "raw"}.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

REPO_ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = REPO_ROOT / ".venv" / "bin"
E2BEVAL_CLI = VENV_BIN / "e2beval"
PROMPTFOO_BIN = REPO_ROOT / "tools" / "promptfoo" / "node_modules" / ".bin"
SETUP_HINT = "run `bash scripts/setup.sh` from the repository root first"

NOT_AVAILABLE = "n/a (pool not available)"


# ---------------------------------------------------------------------------------------------- output


class Report:
    """Collects rows and prints readable lines (stdout, or stderr under --json so stdout stays one JSON)."""

    def __init__(self, bench: str, json_mode: bool) -> None:
        self.bench = bench
        self.json_mode = json_mode
        self.rows: List[Dict[str, Any]] = []
        self.raw: Dict[str, Any] = {}
        self.contention: Optional[Dict[str, Any]] = None
        self.error: Optional[str] = None
        self.skipped: Optional[str] = None

    def say(self, text: str = "") -> None:
        print(text, file=sys.stderr if self.json_mode else sys.stdout, flush=True)

    def row(
        self,
        figure: str,
        value: str,
        baseline: str = "-",
        ratio: str = "-",
        target: str = "-",
        met: Optional[bool] = None,
    ) -> None:
        self.rows.append(
            {"figure": figure, "value": value, "baseline": baseline, "ratio": ratio, "target": target, "met": met}
        )

    def unavailable(self, figure: str, target: str = "-") -> None:
        self.row(figure, NOT_AVAILABLE, target=target)

    def finish(self) -> int:
        ok = self.error is None
        if self.json_mode:
            print(
                json.dumps(
                    {
                        "bench": self.bench,
                        "ok": ok,
                        "error": self.error,
                        "skipped": self.skipped,
                        "contention": self.contention,
                        "rows": self.rows,
                        "raw": self.raw,
                    }
                ),
                flush=True,
            )
        else:
            self.say()
            print_table([{"bench": self.bench, "ok": ok, "error": self.error, "skipped": self.skipped, "rows": self.rows}])
        if not ok:
            print(f"{self.bench}: FAILED: {self.error}", file=sys.stderr, flush=True)
        return 0 if ok else 1


def print_table(results: List[Dict[str, Any]], out=sys.stdout) -> None:
    header = ["bench", "figure", "value", "baseline", "ratio", "target", "met?"]
    lines = []
    for result in results:
        if result.get("skipped"):
            lines.append([result["bench"], "(skipped)", result["skipped"], "", "", "", ""])
            continue
        for row in result["rows"]:
            met = {True: "yes", False: "NO", None: "-"}[row["met"]]
            lines.append([result["bench"], row["figure"], row["value"], row["baseline"], row["ratio"], row["target"], met])
        if result.get("error"):
            lines.append([result["bench"], "(bench failed)", result["error"][:80], "", "", "", "FAIL"])
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(header)]
    fmt = " | ".join("{:<%d}" % w for w in widths)
    print(fmt.format(*header).rstrip(), file=out)
    print("-+-".join("-" * w for w in widths), file=out)
    for line in lines:
        print(fmt.format(*line).rstrip(), file=out)


def parse_args(description: str, add: Optional[Callable[[argparse.ArgumentParser], None]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout (readable lines go to stderr)")
    parser.add_argument(
        "--min-isolation",
        default=os.environ.get("E2BEVAL_BENCH_MIN_ISOLATION", "full"),
        choices=("standard", "full"),
        help="refuse to measure below this isolation level (default full; $E2BEVAL_BENCH_MIN_ISOLATION)",
    )
    if add:
        add(parser)
    return parser.parse_args()


# ------------------------------------------------------------------------------------------ formatting


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"


def secs(seconds: float) -> str:
    return f"{seconds:.3f} s"


def mib(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:.1f} MiB"


def times(ratio: float) -> str:
    return f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.1f}x"


# ------------------------------------------------------------------------------------------ statistics


def percentile(samples: List[float], pct: float) -> float:
    """Nearest-rank percentile (p50 of [1,2,3,4] is 2): no interpolation between samples."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(pct / 100.0 * len(ordered)))
    return ordered[rank - 1]


def median(samples: List[float]) -> float:
    ordered = sorted(samples)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


# ------------------------------------------------------------------------------------------ the tools


def plain_python() -> str:
    """The real interpreter behind `python3` (as e2beval resolves it), not a wrapper such as a pyenv shim:
    a shim is a shell script that would add ~100 ms to every baseline start and flatter e2beval."""
    explicit = os.environ.get("E2BEVAL_PYTHON")
    if explicit:
        return explicit
    found = shutil.which("python3")
    if not found:
        raise SystemExit("no python3 on PATH: the baselines need a plain interpreter")
    real = subprocess.run(
        [found, "-c", "import os, sys; print(os.path.realpath(sys.executable))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    return real or found


def cli_supports_pool() -> bool:
    """The warm pool has landed in the CLI when `e2beval eval --help` offers --no-pool."""
    help_text = subprocess.run([str(E2BEVAL_CLI), "eval", "--help"], capture_output=True, text=True).stdout
    return "--no-pool" in help_text


def module_supports_pool(e2beval_module: Any) -> bool:
    return hasattr(e2beval_module, "warm_up") and hasattr(e2beval_module, "pool_info")


def require(path: Path, what: str) -> None:
    if not path.exists():
        raise SystemExit(f"{what} not found at {path}: {SETUP_HINT}")


# ------------------------------------------------------------------------------------- /proc readings


def vm_rss_bytes(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _rollup(pid: int, keys: tuple) -> Optional[int]:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            return sum(int(line.split()[1]) * 1024 for line in rollup if line.split(":")[0] in keys)
    except OSError:
        return None


def pss_bytes(pid: int) -> Optional[int]:
    """Proportional set size: shared pages divided among the processes that map them."""
    return _rollup(pid, ("Pss",))


def uss_bytes(pid: int) -> Optional[int]:
    """Unique set size: the pages only this process maps, what killing it gives back."""
    return _rollup(pid, ("Private_Clean", "Private_Dirty"))


def parent_pid(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("PPid:"):
                return int(line.split()[1])
    return 0


def process_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return "?"


def _system_busy_ticks() -> int:
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...: busy = all but idle and iowait
    return sum(fields) - fields[3] - (fields[4] if len(fields) > 4 else 0)


def system_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (all CPUs, from /proc/stat; 1/CLK_TCK resolution)."""
    return _system_busy_ticks() / os.sysconf("SC_CLK_TCK")


def _process_ticks() -> Dict[int, tuple]:
    """pid -> (ppid, own + reaped children's cpu ticks, own cpu ticks, comm) for every process now."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                raw = stat.read()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1 : raw.rindex(")")]
        rest = raw[raw.rindex(")") + 2 :].split()
        # rest[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17
        table[int(entry)] = (int(rest[1]), sum(int(x) for x in rest[11:15]), sum(int(x) for x in rest[11:13]), comm)
    return table


def _own_ticks() -> float:
    hz = os.sysconf("SC_CLK_TCK")
    self_times = os.times()
    return (self_times.user + self_times.system + self_times.children_user + self_times.children_system) * hz


class ContentionMonitor:
    """How much of the CPUs other processes (not this one, not its children) used while a bench ran.

    Busy ticks of the whole machine minus this process, its reaped children, and the growth of its
    living descendants (zygotes reap their own children, so their growth counts as ours).
    """

    def __init__(self) -> None:
        self.cpus = os.cpu_count() or 1
        self.hz = os.sysconf("SC_CLK_TCK")

    def idle_probe(self, seconds: float = 0.5) -> float:
        """Busy fraction of all CPUs while this process sleeps: other work on the machine."""
        before = _system_busy_ticks()
        time.sleep(seconds)
        return (_system_busy_ticks() - before) / (seconds * self.hz * self.cpus)

    def __enter__(self) -> "ContentionMonitor":
        self.probe_busy = self.idle_probe()
        self.start_wall = time.monotonic()
        self.start_busy = _system_busy_ticks()
        self.start_own = _own_ticks()
        self.start_procs = _process_ticks()
        return self

    def __exit__(self, *exc: Any) -> None:
        wall = time.monotonic() - self.start_wall
        busy = _system_busy_ticks() - self.start_busy
        own = _own_ticks() - self.start_own
        procs = _process_ticks()
        me = os.getpid()

        def ours(pid: int) -> bool:
            seen = 0
            while pid > 1 and seen < 64:
                if pid == me:
                    return True
                pid = procs[pid][0] if pid in procs else 0
                seen += 1
            return False

        # Naming uses a process's own ticks only: reaped children's time arrives in one lump when they are
        # reaped, possibly spent before the bench started (a shell waiting for a long compile).
        foreign_by_name: Dict[str, float] = {}
        for pid, (ppid, ticks, own_ticks, comm) in procs.items():
            before = self.start_procs.get(pid)
            if ours(pid):
                if pid != me:
                    own += ticks - (before[1] if before else 0)
            else:
                grown = own_ticks - (before[2] if before else 0)
                if grown > 0:
                    foreign_by_name[comm] = foreign_by_name.get(comm, 0) + grown
        capacity = wall * self.hz * self.cpus
        foreign = max(0.0, busy - own) / capacity if capacity else 0.0
        top = sorted(foreign_by_name.items(), key=lambda kv: -kv[1])[:3]
        self.result = {
            "cpus": self.cpus,
            "wall_s": round(wall, 2),
            "idle_probe_busy_fraction": round(self.probe_busy, 3),
            "foreign_busy_fraction": round(foreign, 3),
            "top_foreign": [{"comm": name, "cpu_fraction": round(t / capacity, 3)} for name, t in top if capacity],
            "contended": foreign > 0.10 or self.probe_busy > 0.10,
        }

    def describe(self) -> str:
        r = self.result
        tops = ", ".join(f"{t['comm']} {t['cpu_fraction'] * 100:.0f}%" for t in r["top_foreign"] if t["cpu_fraction"] >= 0.01)
        verdict = "CONTENDED (figures indicative only)" if r["contended"] else "quiet"
        return (
            f"machine: {r['cpus']} CPUs; other processes used {r['foreign_busy_fraction'] * 100:.0f}% of them during the "
            f"bench ({r['idle_probe_busy_fraction'] * 100:.0f}% just before it){': ' + tops if tops else ''} -> {verdict}"
        )


def main(argv: List[str]) -> int:
    """`python bench/benchlib.py table RESULT.json...`: the one table of bench/run_all.sh, then contention."""
    if len(argv) < 2 or argv[1] != "table":
        print("usage: benchlib.py table RESULT.json...", file=sys.stderr)
        return 2
    results = []
    for path in argv[2:]:
        name = Path(path).stem
        text = Path(path).read_text().strip()
        try:
            results.append(json.loads(text.splitlines()[-1]))
        except (json.JSONDecodeError, IndexError):
            results.append({"bench": name, "ok": False, "error": "crashed before printing its result (see its output above)", "rows": []})
    print_table(results)
    print()
    for result in results:
        contention = result.get("contention")
        if contention:
            tops = ", ".join(f"{t['comm']} {t['cpu_fraction'] * 100:.0f}%" for t in contention["top_foreign"] if t["cpu_fraction"] >= 0.01)
            print(
                f"{result['bench']}: other processes used {contention['foreign_busy_fraction'] * 100:.0f}% of the "
                f"{contention['cpus']} CPUs during the bench ({contention['idle_probe_busy_fraction'] * 100:.0f}% just before)"
                + (f" [{tops}]" if tops else "")
                + (" -> CONTENDED: figures indicative only" if contention["contended"] else " -> quiet")
            )
    return 0 if all(r.get("ok") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

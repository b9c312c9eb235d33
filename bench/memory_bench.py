"""Memory: RSS per idle warm sandbox (zygote interpreter + its sandbox init) against an idle plain `python3`,
and the supervisor's (this process's) RSS while 32 sandboxes run at once against its idle RSS.

Usage: .venv/bin/python bench/memory_bench.py [--zygotes N] [--concurrent N] [--json]
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

import benchlib as bl

SLEEPER = "import time\ntime.sleep(1)\nprint('done')"


def idle_plain_python_rss(python: str) -> Tuple[int, int]:
    """VmRSS and USS of a plain interpreter that has started and is waiting on stdin."""
    child = subprocess.Popen(
        [python, "-c", "import sys; print('ready', flush=True); sys.stdin.readline()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        child.stdout.readline()
        time.sleep(0.2)
        return bl.vm_rss_bytes(child.pid), bl.uss_bytes(child.pid) or 0
    finally:
        child.stdin.close()
        child.wait(timeout=10)


def warm_sandboxes(e2beval: Any, zygotes: int) -> List[Dict[str, Any]]:
    """warm_up(zygotes=N), then RSS/PSS of each zygote and of its parent, the sandbox init."""
    e2beval.warm_up(zygotes=zygotes)
    deadline = time.monotonic() + 20
    while len(e2beval.pool_info()) < zygotes:
        if time.monotonic() > deadline:
            raise RuntimeError(f"warm_up(zygotes={zygotes}): only {len(e2beval.pool_info())} zygotes after 20 s")
        time.sleep(0.05)
    time.sleep(0.5)  # let them finish importing and settle
    sandboxes = []
    for entry in e2beval.pool_info()[:zygotes]:
        zygote = int(entry["pid"])
        init = bl.parent_pid(zygote)
        # the sandbox init is the zygote's parent; if the pool's layout ever differs, do not count the
        # supervisor (or pid 1) as part of the sandbox
        separate_init = init > 1 and init != os.getpid()
        sandboxes.append(
            {
                "zygote_pid": zygote,
                "zygote_comm": bl.process_name(zygote),
                "zygote_rss_bytes": bl.vm_rss_bytes(zygote),
                "zygote_rss_bytes_reported": entry.get("rss_bytes"),
                "zygote_pss_bytes": bl.pss_bytes(zygote),
                "zygote_uss_bytes": bl.uss_bytes(zygote),
                "init_pid": init,
                "init_comm": bl.process_name(init) if separate_init else "(not a sandbox init: not counted)",
                "init_rss_bytes": bl.vm_rss_bytes(init) if separate_init else 0,
                "init_pss_bytes": bl.pss_bytes(init) if separate_init else 0,
                "init_uss_bytes": bl.uss_bytes(init) if separate_init else 0,
            }
        )
    return sandboxes


def supervisor_under_load(e2beval: Any, concurrent: int, options: Dict[str, Any]) -> Dict[str, float]:
    """The peak VmRSS, sampled every 5 ms, while `concurrent` sleepers run at once."""
    before = bl.vm_rss_bytes()
    peak = [before]
    running = threading.Event()
    running.set()

    def sample() -> None:
        while running.is_set():
            peak[0] = max(peak[0], bl.vm_rss_bytes())
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    try:
        results = e2beval.execute_many([SLEEPER] * concurrent, jobs=concurrent, timeout=30, **options)
    finally:
        wall = time.perf_counter() - started
        running.clear()
        sampler.join()
    bad = [r for r in results if r.get("outcome") != "ok" or r.get("stdout") != "done\n"]
    if bad:
        raise RuntimeError(f"{len(bad)} of {concurrent} sleepers failed: {bad[0].get('outcome')} {bad[0].get('detail')!r}")
    return {"before_bytes": before, "peak_bytes": peak[0], "wall_s": wall}


def main() -> int:
    args = bl.parse_args(
        __doc__.splitlines()[0],
        lambda p: (
            p.add_argument("--zygotes", type=int, default=4, help="idle warm sandboxes to measure (default 4)"),
            p.add_argument("--concurrent", type=int, default=32, help="sandboxes at once for the supervisor figure (default 32)"),
            p.add_argument("--rounds", type=int, default=3, help="repeats of the supervisor measurement (median)"),
        ),
    )
    report = bl.Report("memory", args.json)
    import e2beval

    pool = bl.module_supports_pool(e2beval)
    python = bl.plain_python()
    isolation = {"minimum_level": args.min_isolation}
    report.say(f"memory: warm pool {'available' if pool else 'not available'}; baseline idle {python}; "
               f"{args.concurrent} concurrent sleepers; isolation >= {args.min_isolation}")
    plain_rss, plain_uss = idle_plain_python_rss(python)
    report.say(f"memory: idle plain python3: {bl.mib(plain_rss)} RSS, {bl.mib(plain_uss)} USS")
    sandboxes: Optional[List[Dict[str, Any]]] = None
    loads: Dict[str, List[Dict[str, float]]] = {"warm": [], "cold": []}
    try:
        with bl.ContentionMonitor() as monitor:
            # the library's lazily built state (interpreter probe, seccomp filter, ...) counts as idle
            e2beval.execute("pass", isolation=isolation, **({"pool": False} if pool else {}))
            if pool:
                sandboxes = warm_sandboxes(e2beval, args.zygotes)
                for s in sandboxes:
                    report.say(
                        f"  zygote pid {s['zygote_pid']} ({s['zygote_comm']}) RSS {bl.mib(s['zygote_rss_bytes'])}"
                        f" PSS {bl.mib(s['zygote_pss_bytes'] or 0)} USS {bl.mib(s['zygote_uss_bytes'] or 0)};"
                        f" its init pid {s['init_pid']} ({s['init_comm']}) RSS {bl.mib(s['init_rss_bytes'])}"
                        f" PSS {bl.mib(s['init_pss_bytes'] or 0)} USS {bl.mib(s['init_uss_bytes'] or 0)}"
                    )
            # idle: library initialised (and the pool warmed), before any batch ever ran
            idle_supervisor = bl.vm_rss_bytes()
            report.say(f"memory: idle supervisor (this process): {bl.mib(idle_supervisor)} RSS")
            modes = (["warm"] if pool else []) + ["cold"]
            for index in range(max(1, args.rounds)):
                for mode in modes:
                    options = {"isolation": isolation, **({"pool": False} if pool and mode == "cold" else {})}
                    load = supervisor_under_load(e2beval, args.concurrent, options)
                    loads[mode].append(load)
                    report.say(
                        f"  round {index + 1} {mode}: supervisor {bl.mib(load['before_bytes'])} before, peak "
                        f"{bl.mib(load['peak_bytes'])} with {args.concurrent} sandboxes (batch took {bl.secs(load['wall_s'])})"
                    )
    except (RuntimeError, e2beval.Error) as error:
        report.error = str(error)
        report.say(f"memory: FAILED: {error}")
        return report.finish()

    report.contention = monitor.result
    report.say("memory: " + monitor.describe())
    report.raw = {"plain_python_rss_bytes": plain_rss, "plain_python_uss_bytes": plain_uss, "sandboxes": sandboxes, "supervisor_idle_bytes": idle_supervisor,
                  "supervisor": loads}

    baseline = f"python3 {bl.mib(plain_rss)}"
    if sandboxes:
        count = len(sandboxes)
        zygote_rss = sum(s["zygote_rss_bytes"] for s in sandboxes) / count
        init_rss = sum(s["init_rss_bytes"] for s in sandboxes) / count
        per_sandbox = zygote_rss + init_rss
        per_sandbox_pss = sum((s["zygote_pss_bytes"] or 0) + (s["init_pss_bytes"] or 0) for s in sandboxes) / count
        report.row(f"RSS per idle warm sandbox (zygote+init, n={count})", bl.mib(per_sandbox), baseline,
                   bl.times(per_sandbox / plain_rss), "<= 8 MiB", per_sandbox <= 8 * 2**20)
        report.row("  of which zygote interpreter", bl.mib(zygote_rss), baseline, bl.times(zygote_rss / plain_rss), "(info)")
        report.row("  of which sandbox init", bl.mib(init_rss), "-", "-", "(info)")
        per_sandbox_uss = sum((s["zygote_uss_bytes"] or 0) + (s["init_uss_bytes"] or 0) for s in sandboxes) / count
        report.row("PSS per idle warm sandbox (shared pages split)", bl.mib(per_sandbox_pss), "-", "-", "(info)")
        report.row("USS per idle warm sandbox (private pages only)", bl.mib(per_sandbox_uss), f"python3 {bl.mib(plain_uss)}",
                   bl.times(per_sandbox_uss / plain_uss) if plain_uss else "-", "(info)")
    else:
        report.unavailable("RSS per idle warm sandbox (zygote+init)", "<= 8 MiB")
    for mode in (["warm"] if pool else []) + ["cold"]:
        idle = idle_supervisor
        peak = bl.median([l["peak_bytes"] for l in loads[mode]])
        report.row(f"supervisor RSS, {args.concurrent} sandboxes, {mode}", bl.mib(peak), f"idle {bl.mib(idle)}",
                   bl.times(peak / idle), "(info)")
        report.row(f"  supervisor growth per running sandbox, {mode}", f"{(peak - idle) / args.concurrent / 1024:.0f} KiB",
                   "-", "-", "(info)")
    if not pool:
        report.unavailable(f"supervisor RSS, {args.concurrent} sandboxes, warm")
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

"""Soak test: thousands of sandboxed executions, sequential and concurrent, must leave the supervisor
(this process) and the host exactly as they were: no fd, memory, mount, cgroup, process or temp-dir growth.

Run it with `bash scripts/soak.sh [EXECUTIONS]` (default 5000; about 3-5 minutes on 2 cores). It is
kept out of the default test run because of its length; tests/cpp/test_isolation.cpp checks the same
invariants over 20 executions on every run.
"""

import argparse
import concurrent.futures
import glob
import os
import sys
import time

import e2beval

# A mix of what model output does: finish, fail, time out, fork, flood, hit a denied call.
PROGRAMS = [
    ("print(1)", {}),
    ("import sys\nsys.exit(3)", {}),
    ("while True: pass", {"timeout": 0.2}),
    ("import os\nif os.fork() == 0:\n    import time; time.sleep(30)\nprint('parent done')", {}),
    ("import sys\nsys.stdout.write('x' * (2 << 20))", {}),
    ("import ctypes\nctypes.CDLL(None).unshare(0x10000000)\nprint('denied')", {}),
    ("x = bytearray(20 << 20)\nprint(len(x))", {}),
]


CHECKPOINT = 500


def snapshot():
    own = os.getpid()
    children = 0
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == own:  # ppid
            children += 1
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    cgroups = [p for p in glob.glob("/sys/fs/cgroup/**/e2beval-%d-*" % own, recursive=True)]
    return {
        "fds": len(os.listdir("/proc/self/fd")),
        "rss_kib": int(status["VmRSS"].split()[0]),
        "threads": int(status["Threads"]),
        "mounts": sum(1 for _ in open("/proc/self/mountinfo")),
        "cgroups": len(cgroups),
        "children": children,
        "tmp_entries": len([n for n in os.listdir("/tmp") if n.startswith("e2beval")]),
    }


def run_one(index):
    code, options = PROGRAMS[index % len(PROGRAMS)]
    return e2beval.execute(code, **options)["outcome"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("executions", nargs="?", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=4, help="threads for the concurrent half (default 4)")
    args = parser.parse_args()
    if args.executions < 2 * CHECKPOINT:
        parser.error(f"use at least {2 * CHECKPOINT} executions")

    half = args.executions // 2
    # Warm-up: one-time state (interpreter lookup, filters), and the warm pool at the size the concurrent
    # phase gives it (one zygote per worker, each with its cgroups and control socket), which it keeps
    # afterwards by design: that is the baseline, and anything beyond it at the end is a leak.
    for index in range(len(PROGRAMS)):
        run_one(index)
    with concurrent.futures.ThreadPoolExecutor(args.workers) as pool:
        list(pool.map(run_one, range(args.workers * len(PROGRAMS))))
    baseline = snapshot()
    print(f"baseline: {baseline}")
    outcomes = {}
    started = time.monotonic()
    phases = {"sequential": [], "concurrent": []}
    for index in range(half):
        outcome = run_one(index)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if (index + 1) % CHECKPOINT == 0 or index + 1 == half:
            phases["sequential"].append(snapshot())
            print(f"sequential {index + 1}/{half}: {phases['sequential'][-1]}", flush=True)
    with concurrent.futures.ThreadPoolExecutor(args.workers) as pool:
        total = args.executions - half
        for done, outcome in enumerate(pool.map(run_one, range(total)), start=1):
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if done % CHECKPOINT == 0 or done == total:
                phases["concurrent"].append(snapshot())
                print(f"concurrent {done}/{total}: {phases['concurrent'][-1]}", flush=True)
    elapsed = time.monotonic() - started
    # Work the last executions left in the background (a deferred reap, a zygote being replaced, its
    # thread ending) gets a few seconds to finish: a leak is what is still there after that.
    counted = ("fds", "mounts", "cgroups", "children", "tmp_entries", "threads")
    settle_until = time.monotonic() + 10
    final = snapshot()
    while any(final[key] != baseline[key] for key in counted) and time.monotonic() < settle_until:
        time.sleep(0.2)
        final = snapshot()
    print(f"final:    {final}")
    print(f"{args.executions} executions in {elapsed:.1f} s ({args.executions / elapsed:.1f}/s); outcomes: {outcomes}")

    problems = []
    for key in counted:
        if final[key] != baseline[key]:
            problems.append(f"{key}: {baseline[key]} -> {final[key]}")
    # Memory: the first executions of each phase grow the allocator (one arena per worker thread);
    # after that, RSS must stay flat. Compare each phase's last checkpoint with its first.
    for phase, points in phases.items():
        growth = points[-1]["rss_kib"] - points[0]["rss_kib"]
        print(f"{phase}: rss {points[0]['rss_kib']} KiB -> {points[-1]['rss_kib']} KiB over {len(points)} checkpoints")
        if len(points) > 1 and growth > 4096:
            problems.append(f"rss grew by {growth} KiB during the {phase} phase")
    expected = {"ok", "exit_nonzero", "timeout", "output_limit"}
    if set(outcomes) - expected:
        problems.append(f"unexpected outcomes: {set(outcomes) - expected}")
    if problems:
        print("SOAK FAILED: " + "; ".join(problems))
        return 1
    print(f"soak: {args.executions} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

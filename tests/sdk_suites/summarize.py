"""Prints the counts of an SDK suites run (run.sh) from pytest's JUnit XML and the plugin's deselected lists:
per suite, passed / failed / errors / skipped / deselected, then each failure (test id and the first line of its
message), then the deselected tests counted by reason. Exits 0.

    python summarize.py RESULTS_DIR SUITE...
"""
from __future__ import annotations

import collections
import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def outcomes(junit: Path) -> list[tuple[str, str, str]]:
    """(test id, outcome, first line of the message) for every test case of the file."""
    cases = []
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        name = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            found = case.find(tag)
            if found is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
                message = (found.get("message") or found.text or "").strip().splitlines()
                message = message[0][:200] if message else ""
                break
        cases.append((name, outcome, message))
    return cases


def main(results: Path, suites: list[str]) -> None:
    totals = collections.Counter()
    for suite in suites:
        junit = results / f"{suite}.xml"
        deselected_file = results / f"{suite}.deselected.json"
        deselected = json.loads(deselected_file.read_text()) if deselected_file.exists() else {}
        if not junit.exists():
            print(f"{suite}: no results (pytest did not run; see above)")
            continue
        cases = outcomes(junit)
        counts = collections.Counter(outcome for _, outcome, _ in cases)
        counts["deselected"] = len(deselected)
        totals.update(counts)
        print(f"{suite}: {counts['passed']} passed, {counts['failed']} failed, {counts['error']} errors, "
              f"{counts['skipped']} skipped, {counts['deselected']} deselected (not offered)")
        for name, outcome, message in cases:
            if outcome in ("failed", "error"):
                print(f"  {outcome.upper():6} {name}: {message}")
        for reason, count in sorted(collections.Counter(deselected.values()).items()):
            print(f"  deselected {count:3}: {reason}")
    ran = totals["passed"] + totals["failed"] + totals["error"]
    print(f"total: {totals['passed']} of {ran} passed ({totals['failed']} failed, {totals['error']} errors), "
          f"{totals['skipped']} skipped, {totals['deselected']} deselected (not offered)")
    print(f"{totals['passed']} passed, {totals['failed'] + totals['error']} failed")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: summarize.py RESULTS_DIR SUITE...")
    main(Path(sys.argv[1]), sys.argv[2:])

"""pytest plugin loaded into the E2B SDKs' own test suites by run.sh (`-p sdk_suite_plugin`): deselects the
tests of what `e2beval serve` does not offer, as not_offered.txt lists them (each with its reason), and writes
what it deselected, so summarize.py can count it. It changes nothing else: the suites' own conftest.py files
and fixtures run as they are.

Environment (set by run.sh): SDK_SUITE, the suite's name in not_offered.txt (`e2b` or `code-interpreter`);
SDK_SUITES_RESULTS, the directory for `<suite>.deselected.json`.
"""
from __future__ import annotations

import fnmatch
import json
import os
from pathlib import Path

import pytest

LIST = Path(__file__).with_name("not_offered.txt")


def read_not_offered(path: Path = LIST) -> list[tuple[str, str, str]]:
    """The list as (suite, pattern, reason): a `## reason` line opens a block, each following line is
    `SUITE PATTERN`, a glob on pytest's node id (a pattern without `::` matches every test of the files it names)."""
    entries, reason = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or (line.startswith("#") and not line.startswith("## ")):
            continue
        if line.startswith("## "):
            reason = line[3:].strip()
            continue
        parts = line.split()
        if reason is None or len(parts) != 2 or parts[0] not in ("e2b", "code-interpreter"):
            raise ValueError(f"{path}:{number}: expected `SUITE PATTERN` (SUITE e2b or code-interpreter) under a "
                             f"`## reason` line, got {line!r}")
        entries.append((parts[0], parts[1], reason))
    return entries


def matches(nodeid: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(nodeid, pattern) if "::" in pattern else \
        fnmatch.fnmatchcase(nodeid.split("::", 1)[0], pattern)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    suite = os.environ.get("SDK_SUITE", "")
    entries = [(pattern, reason) for name, pattern, reason in read_not_offered() if name == suite]
    kept, deselected = [], {}
    for item in items:
        reason = next((reason for pattern, reason in entries if matches(item.nodeid, pattern)), None)
        if reason is None:
            kept.append(item)
        else:
            deselected[item.nodeid] = reason
    if deselected:
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in deselected])
        items[:] = kept
    results = os.environ.get("SDK_SUITES_RESULTS")
    if results:
        # Under xdist every worker collects (and deselects) the same tests; the last to write wins.
        target = Path(results) / f"{suite}.deselected.json"
        temporary = target.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(deselected, indent=1), encoding="utf-8")
        os.replace(temporary, target)

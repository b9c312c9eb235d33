"""Shared by the report tests: the e2beval CLI next to this Python, and a real promptfoo run of the tutorial
example (examples/promptfoo) that leaves its metrics directory and its `-o` JSON behind."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from _support import PROMPTFOO_BIN_DIR, REPO, find_cli, run_promptfoo

TUTORIAL_CONFIG = REPO / "examples" / "promptfoo" / "promptfooconfig.yaml"

# The tutorial example's tests (examples/promptfoo/README.md): description -> passes.
TUTORIAL_EXPECTED = {
    "factorial(5) -> 120": True,
    "is_palindrome('racecar') -> True": True,
    "find_largest([1, 5, 3, 9, 2]) -> 9": True,
    "read_file('/etc/passwd') is refused": False,
    "factorial(-3) raises ValueError": True,
    "reverse_string('hello') -> olleh (wrong answer)": False,
    "factorial test_cases 0->1, 5->120, 7->5040": True,
    "is_palindrome testCode/expectedOutput": True,
}


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([find_cli(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@dataclass
class TutorialRun:
    metrics_dir: Path
    out_json: Path
    log: str


def run_tutorial_example(work: Path) -> TutorialRun:
    """`promptfoo eval` of examples/promptfoo with e2beval's assertion, as a user runs it."""
    path = f"{PROMPTFOO_BIN_DIR}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    run = run_promptfoo(TUTORIAL_CONFIG, work, timeout_s=300, PATH=path)
    # 100: promptfoo's exit code when a test failed; two of the tutorial's tests fail on purpose.
    assert run.proc.returncode == 100, run.log
    assert run.metrics_dir.is_dir(), run.log
    return TutorialRun(run.metrics_dir, run.out_json, run.log)

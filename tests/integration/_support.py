"""Shared by the integration tests: the e2beval CLI next to this Python, and a real `promptfoo eval` run in a
scratch directory, configured as a user runs it (PROMPTFOO_PYTHON is this interpreter, which has e2beval)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
PROMPTFOO_BIN_DIR = REPO / "tools" / "promptfoo" / "node_modules" / ".bin"
SETUP_HINT = "run scripts/setup.sh to install promptfoo and e2beval"


def find_cli() -> str:
    candidate = Path(sys.executable).parent / "e2beval"
    found = str(candidate) if candidate.exists() else shutil.which("e2beval")
    if not found:
        pytest.fail(f"the e2beval command is not installed next to {sys.executable}; {SETUP_HINT}", pytrace=False)
    return found


def require_importable_e2beval() -> None:
    """Fails with the fix when this interpreter, the PROMPTFOO_PYTHON promptfoo will use, lacks e2beval."""
    probe = subprocess.run([sys.executable, "-c", "import e2beval.promptfoo"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.fail(f"`import e2beval.promptfoo` fails with {sys.executable}, the PROMPTFOO_PYTHON promptfoo "
                    f"will use; {SETUP_HINT}.\n{probe.stderr}", pytrace=False)


def promptfoo_executable() -> Path:
    exe = PROMPTFOO_BIN_DIR / "promptfoo"
    if not (exe.exists() and (PROMPTFOO_BIN_DIR / "node").exists()):
        pytest.fail(f"promptfoo is not installed at {exe} (with Node 22 next to it); {SETUP_HINT}", pytrace=False)
    return exe


def promptfoo_env(work: Path, **overrides: Optional[str]) -> dict:
    """promptfoo's environment: metrics in work/metrics, its database in work, no telemetry or colour; an
    override of None removes the variable."""
    env = dict(os.environ)
    env.update(
        {
            "PATH": f"{PROMPTFOO_BIN_DIR}{os.pathsep}{env.get('PATH', '')}",
            "PROMPTFOO_PYTHON": sys.executable,
            "PROMPTFOO_RESULTS_DIR": str(work / "metrics"),
            "PROMPTFOO_CONFIG_DIR": str(work / "promptfoo-home"),  # promptfoo's db and logs, not ~/.promptfoo
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "NO_COLOR": "1",
            "FORCE_COLOR": "0",
        }
    )
    for name in ("PROMPTFOO_FAILED_TEST_EXIT_CODE", "PROMPTFOO_PASS_RATE_THRESHOLD"):
        env.pop(name, None)  # the tests check promptfoo's default exit codes
    env.update(overrides)
    return {name: value for name, value in env.items() if value is not None}


class PromptfooRun:
    """One `promptfoo eval`: its process, the -o JSON (rows and stats) and the metrics directory."""

    def __init__(self, config: Path, work: Path, command: list, proc: subprocess.CompletedProcess, out_json: Path):
        self.config, self.work, self.command, self.proc, self.out_json = config, work, command, proc, out_json
        self.metrics_dir = work / "metrics"
        self.out = json.loads(out_json.read_text(encoding="utf-8"))
        self.rows = self.out["results"]["results"]
        self.stats = self.out["results"]["stats"]

    @property
    def log(self) -> str:
        return (f"{' '.join(self.command)}\nexit code {self.proc.returncode}\n--- stdout ---\n{self.proc.stdout}\n"
                f"--- stderr ---\n{self.proc.stderr}")

    def row(self, description: str, provider_label: Optional[str] = None) -> dict:
        rows = [r for r in self.rows if r["testCase"].get("description") == description
                and (provider_label is None or r["provider"].get("label") == provider_label)]
        assert len(rows) == 1, f"{len(rows)} rows for {description!r} ({provider_label})\n{self.log}"
        return rows[0]


def run_promptfoo(config: Path, work: Path, *extra: str, timeout_s: int = 600, **env: Optional[str]) -> PromptfooRun:
    """`promptfoo eval -c config -o work/out.json` with `extra` arguments and `env` overrides (see promptfoo_env)."""
    out_json = work / "out.json"
    command = [str(promptfoo_executable()), "eval", "-c", str(config), "-o", str(out_json),
               "--no-cache", "--no-share", "--no-write", "--no-progress-bar", *extra]
    # cwd is a scratch directory: nothing promptfoo or e2beval writes by default lands in the repository.
    proc = subprocess.run(command, cwd=work, env=promptfoo_env(work, **env), capture_output=True, text=True,
                          timeout=timeout_s)
    log = f"{' '.join(command)}\nexit code {proc.returncode}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    assert proc.returncode in (0, 100), f"promptfoo eval failed to run:\n{log}"
    assert out_json.exists(), f"promptfoo wrote no {out_json}:\n{log}"
    return PromptfooRun(config, work, command, proc, out_json)

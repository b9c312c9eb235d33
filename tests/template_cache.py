"""The test run's template store (docs/templates.md), shared by every test module that needs a template and every
process they start: one cache directory under build/ (E2BEVAL_CACHE_DIR), pip's cache under build/ too, and the
built-in template code-interpreter-v1 (E2B's packages, which `e2beval serve` gives the SDKs' default template)
built there at most once per run. scripts/test.sh starts that build early, beside the tests that do not need it,
and exports the same two directories; a module here then finds it built (a file read), or waits for that build.
Run alone, the first module that needs it builds it (minutes: pip downloads E2B's packages once into
build/pip-cache).

Imported by path (tests/ appended to `sys.path`): tests/serve/conftest.py, tests/templates/conftest.py,
tests/integration/_support.py."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / "build" / "test-templates"
PIP_CACHE = REPO / "build" / "pip-cache"
CODE_INTERPRETER = "code-interpreter-v1"


def use_test_cache() -> None:
    """This process, and what it starts from now on, finds templates in CACHE (and pip its downloads in PIP_CACHE)."""
    os.environ["E2BEVAL_CACHE_DIR"] = str(CACHE)
    os.environ.setdefault("PIP_CACHE_DIR", str(PIP_CACHE))


def ensure_code_interpreter(cli: str) -> float:
    """Builds code-interpreter-v1 into CACHE unless it is built there (`e2beval template build` reuses a build of
    the same requirements and Python); returns the seconds it took. A failed build fails the caller with pip's log."""
    use_test_cache()
    started = time.monotonic()
    built = subprocess.run([cli, "template", "build", CODE_INTERPRETER], capture_output=True, text=True, timeout=3600)
    assert built.returncode == 0, f"building {CODE_INTERPRETER} failed:\n{built.stdout}\n{built.stderr[-20000:]}"
    return time.monotonic() - started

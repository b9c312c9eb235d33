"""Helpers every test directory shares (tests/python, tests/integration, tests/security, tests/serve,
tests/sandbox_fusion, tests/templates), imported as `from support.waiting import until`.

A package, not a conftest: the test directories are not packages, so two conftest.py files are both the module
`conftest` and `from conftest import X` finds whichever was imported first. tests/ is on sys.path for every test
(tests/conftest.py puts it there); a script a test starts as a process of its own adds it itself."""
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

# The first line of a Python script that a test runs as a process of its own (`python -c SCRIPT`), so that the
# script imports these helpers too.
IMPORTABLE = f"import sys; sys.path.insert(0, {str(TESTS)!r})\n"

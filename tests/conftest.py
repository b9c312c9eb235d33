"""Shared by every test directory (tests/python, tests/integration, tests/security, tests/serve, tests/templates)."""
import sys
from pathlib import Path

import pytest

# tests/ on sys.path, said here rather than left to pytest's default import mode (which inserts this file's folder
# too, but not under --import-mode=importlib): the shared helpers are the package tests/support, imported as
# `from support.waiting import until` from every test directory.
TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)


@pytest.hookimpl(trylast=True)  # after tests/serve's and tests/templates' conftests have marked their tests
def pytest_collection_modifyitems(config, items):
    """The tests that need code-interpreter-v1 come last, in their files' order. scripts/test.sh runs everything
    that is not exclusive in one parallel run (pytest-xdist sends whole files to the workers in this order) while
    that template builds in the background: the workers reach these files when the others are done, by then the
    template is mostly built, and a file that comes earlier waits for it (`e2beval template build` waits for a
    build of the same name in progress, then reuses it). A serial run is reordered the same way."""
    items.sort(key=lambda item: item.get_closest_marker("code_interpreter") is not None)  # stable: keeps the rest

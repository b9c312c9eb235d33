"""Templates (docs/templates.md) for the tests of this directory: one cache directory under build/ shared by the
whole run (E2BEVAL_CACHE_DIR, so the CLI, the Python module, promptfoo's assertion and `e2beval serve` all see
it), pip's cache under build/ too, and the data-science template of examples/templates built once per run
(reused by hash on the next run, so only the first run downloads anything)."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/, for template_cache
import template_cache as template_cache_module  # noqa: E402


HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these marks
def pytest_collection_modifyitems(config, items):
    """Every test here is marked code_interpreter (pyproject.toml): some use that template, and all share the
    template cache with its build (they build, list and remove templates there). The parallel run (docs/testing.md) runs them
    once it is built."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.code_interpreter)


REPO = template_cache_module.REPO
CACHE = template_cache_module.CACHE
REQUIREMENTS = REPO / "examples" / "templates" / "requirements.txt"


def cli() -> str:
    candidate = Path(sys.executable).parent / "e2beval"
    assert candidate.exists(), f"e2beval is not installed next to {sys.executable}: run scripts/setup.sh"
    return str(candidate)


def template(*arguments: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """`e2beval template ARGUMENTS` with the tests' cache directory."""
    return subprocess.run([cli(), "template", *arguments], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "E2BEVAL_CACHE_DIR": str(CACHE),
                               "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR", str(template_cache_module.PIP_CACHE))})


@pytest.fixture(scope="session", autouse=True)
def template_cache():
    """Every test here (and what it starts) finds templates in CACHE."""
    saved = os.environ.get("E2BEVAL_CACHE_DIR")
    os.environ["E2BEVAL_CACHE_DIR"] = str(CACHE)
    yield CACHE
    if saved is None:
        os.environ.pop("E2BEVAL_CACHE_DIR", None)
    else:
        os.environ["E2BEVAL_CACHE_DIR"] = saved


@pytest.fixture(scope="session")
def data_science(template_cache) -> str:
    """The data-science template (numpy, pandas, matplotlib, pinned), built or reused; its name."""
    started = time.monotonic()
    built = template("build", "data-science", "-r", str(REQUIREMENTS))
    assert built.returncode == 0, f"building the data-science template failed:\n{built.stdout}\n{built.stderr}"
    print(f"\ndata-science template ready in {time.monotonic() - started:.1f} s: {built.stdout.strip()}")
    return "data-science"


@pytest.fixture(scope="session")
def code_interpreter(template_cache) -> str:
    """The built-in template code-interpreter-v1 (E2B's packages), built or found built in CACHE; its name."""
    seconds = template_cache_module.ensure_code_interpreter(cli())
    print(f"\ncode-interpreter-v1 ready in {seconds:.1f} s")
    return template_cache_module.CODE_INTERPRETER

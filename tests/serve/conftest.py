"""One real `e2beval serve` per test module, on 127.0.0.1 and a free port, with the official E2B Python SDK
pointed at it through the three environment variables it prints (E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY).
The servers serve code-interpreter-v1 (the SDKs' default template) as users get it, with E2B's packages: the
built-in template, built at most once per run into the tests' template cache (tests/template_cache.py)."""
import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/, for template_cache
import template_cache  # noqa: E402

sys.path.append(str(Path(__file__).resolve().parent))  # serve_process
from serve_process import ServeProcess, serve_binary  # noqa: E402,F401
from support.environment import environment  # noqa: E402


HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these marks
def pytest_collection_modifyitems(config, items):
    """Every test here is marked code_interpreter (pyproject.toml): the autouse fixture below builds, or finds
    built, that template before any server here starts. The parallel run (docs/testing.md) runs them once it is
    built."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.code_interpreter)


@pytest.fixture(scope="session", autouse=True)
def code_interpreter_template():
    """Built before any server starts here, so that a server's start finds it (a server that had to build it
    would print pip's log before its export lines)."""
    seconds = template_cache.ensure_code_interpreter(serve_binary())
    print(f"\n{template_cache.CODE_INTERPRETER} ready in {seconds:.1f} s ({template_cache.CACHE})")


@pytest.fixture(scope="module")
def serve():
    server = ServeProcess("--max-sandboxes", "3")
    with environment(server.env):
        yield server
        server.stop()


@pytest.fixture
def sandbox(request, serve):
    """A sandbox on the module's server, of the `Sandbox` class the test module imports: e2b's or
    e2b-code-interpreter's (their default templates differ: `base`, and `code-interpreter-v1`). Killed after the test."""
    sdk_sandbox = request.module.Sandbox
    created = sdk_sandbox.create(timeout=180)
    yield created
    sdk_sandbox.kill(created.sandbox_id)

"""One real `e2beval serve` per test module, on 127.0.0.1 and a free port, with the official E2B Python SDK
pointed at it through the three environment variables it prints (E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY).
The servers serve code-interpreter-v1 (the SDKs' default template) as users get it, with E2B's packages: the
built-in template, built at most once per run into the tests' template cache (tests/template_cache.py)."""
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/, for template_cache
import template_cache  # noqa: E402


HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these marks
def pytest_collection_modifyitems(config, items):
    """Every test here is marked code_interpreter (pyproject.toml): the autouse fixture below builds, or finds
    built, that template before any server here starts. The parallel run (docs/testing.md) runs them once it is
    built."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.code_interpreter)


def serve_binary() -> str:
    binary = os.environ.get("E2BEVAL_SERVE_BINARY") or shutil.which("e2beval")
    assert binary, "e2beval is not on PATH: source scripts/env.sh"
    return binary


@pytest.fixture(scope="session", autouse=True)
def code_interpreter_template():
    """Built before any server starts here, so that a server's start finds it (a server that had to build it
    would print pip's log before its export lines)."""
    seconds = template_cache.ensure_code_interpreter(serve_binary())
    print(f"\n{template_cache.CODE_INTERPRETER} ready in {seconds:.1f} s ({template_cache.CACHE})")


class ServeProcess:
    def __init__(self, *options):
        template_cache.use_test_cache()
        self.process = subprocess.Popen([serve_binary(), "serve", "--port", "0", *options], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        # serve prints E2B_API_URL and E2B_SANDBOX_URL, and E2B_API_KEY only when it generated the key: with
        # --api-key it prints two lines, and waiting for a third would hang. The given key goes into env instead.
        options = list(options)
        given_key = options[options.index("--api-key") + 1] if "--api-key" in options else None
        expected = {"E2B_API_URL", "E2B_SANDBOX_URL"} | (set() if given_key else {"E2B_API_KEY"})
        self.env = {}
        deadline = time.monotonic() + 30
        while not expected <= set(self.env) and time.monotonic() < deadline:
            line = self.process.stdout.readline()
            assert line, "e2beval serve ended before printing its export lines: " + self.process.stderr.read()
            name, _, value = line.strip().removeprefix("export ").partition("=")
            self.env[name] = value
        assert set(self.env) == expected, self.env
        if given_key:
            self.env["E2B_API_KEY"] = given_key

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)
        return self.process.returncode


@pytest.fixture(scope="module")
def serve():
    server = ServeProcess("--max-sandboxes", "3")
    saved = {name: os.environ.get(name) for name in server.env}
    os.environ.update(server.env)
    yield server
    server.stop()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def sandbox(request, serve):
    """A sandbox on the module's server, of the `Sandbox` class the test module imports: e2b's or
    e2b-code-interpreter's (their default templates differ: `base`, and `code-interpreter-v1`). Killed after the test."""
    sdk_sandbox = request.module.Sandbox
    created = sdk_sandbox.create(timeout=180)
    yield created
    sdk_sandbox.kill(created.sandbox_id)

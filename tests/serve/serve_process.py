"""`e2beval serve` as the tests here start it: one process on 127.0.0.1 and a free port, and the environment
variables it prints for the official E2B SDKs. A module of its own rather than part of conftest.py: another test
directory (tests/sandbox_fusion) has a conftest.py too, and `from conftest import ...` found whichever pytest had
imported last."""
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/, for template_cache
import template_cache  # noqa: E402


def serve_binary() -> str:
    binary = os.environ.get("E2BEVAL_SERVE_BINARY") or shutil.which("e2beval")
    assert binary, "e2beval is not on PATH: source scripts/env.sh"
    return binary


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

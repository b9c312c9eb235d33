"""One real `e2beval serve` per test module for SandboxFusion's API (docs/sandbox-fusion.md), on 127.0.0.1 and a
free port, with the official `sandbox-fusion` client (0.3.7, a pinned test dependency) pointed at it. The server
serves no E2B template here (--bare-code-interpreter): SandboxFusion's routes never use one."""
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
DATASETS = SHARED / "datasets"


def serve_binary() -> str:
    binary = os.environ.get("E2BEVAL_SERVE_BINARY") or shutil.which("e2beval")
    assert binary, "e2beval is not on PATH: source scripts/env.sh"
    return binary


class SandboxFusionServer:
    """`e2beval serve --port 0 --bare-code-interpreter OPTIONS`; `endpoint` is the base URL the client takes
    (sandbox_fusion.set_endpoint, or endpoint= on each call)."""

    def __init__(self, *options):
        self.process = subprocess.Popen([serve_binary(), "serve", "--port", "0", "--bare-code-interpreter",
                                         "--ready-sandboxes", "0", *options],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.endpoint = None
        self.sandbox_fusion_endpoint = None  # the SANDBOX_FUSION_ENDPOINT line serve prints (the same URL)
        deadline = time.monotonic() + 60
        while (self.endpoint is None or self.sandbox_fusion_endpoint is None) and time.monotonic() < deadline:
            line = self.process.stdout.readline()
            assert line, "e2beval serve ended before printing its export lines: " + self.process.stderr.read()
            name, _, value = line.strip().removeprefix("export ").partition("=")
            if name == "E2B_API_URL":
                self.endpoint = value
            if name == "SANDBOX_FUSION_ENDPOINT":
                self.sandbox_fusion_endpoint = value
        assert self.endpoint, "e2beval serve printed no E2B_API_URL line"
        self.port = int(self.endpoint.rsplit(":", 1)[1])

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)
        return self.process.returncode


@pytest.fixture(scope="module")
def sandbox_fusion_server(request):
    """The module's server; a module passes options with `SERVE_OPTIONS = [...]` at its top."""
    server = SandboxFusionServer(*getattr(request.module, "SERVE_OPTIONS", []))
    yield server
    assert server.stop() == 0, "e2beval serve did not stop cleanly: " + server.process.stderr.read()


@pytest.fixture(scope="module")
def endpoint(sandbox_fusion_server):
    return sandbox_fusion_server.endpoint

"""`e2beval serve` for SandboxFusion's API, as the tests here start it (a module of its own rather than part of
conftest.py: tests/serve has a conftest.py too, and `from conftest import ...` would find whichever was imported
first when both directories run in one pytest)."""
import os
import shutil
import signal
import subprocess
import time


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

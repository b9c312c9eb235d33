"""One real `e2beval serve` per test module for SandboxFusion's API (docs/sandbox-fusion.md), on 127.0.0.1 and a
free port, with the official `sandbox-fusion` client (0.3.7, a pinned test dependency) pointed at it. The server
serves no E2B template here (--bare-code-interpreter): SandboxFusion's routes never use one."""
import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parent))  # sf_server
from sf_server import SandboxFusionServer  # noqa: E402

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
DATASETS = SHARED / "datasets"


@pytest.fixture(scope="module")
def sandbox_fusion_server(request):
    """The module's server; a module passes options with `SERVE_OPTIONS = [...]` at its top."""
    server = SandboxFusionServer(*getattr(request.module, "SERVE_OPTIONS", []))
    yield server
    assert server.stop() == 0, "e2beval serve did not stop cleanly: " + server.process.stderr.read()


@pytest.fixture(scope="module")
def endpoint(sandbox_fusion_server):
    return sandbox_fusion_server.endpoint

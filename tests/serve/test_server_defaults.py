"""`e2beval serve --default-timeout S --memory-mb MB`: the lifetime of a sandbox whose create names none, and the
memory of every sandbox (docs/serve.md, "Limits")."""

import httpx
from e2b_code_interpreter import Sandbox

from conftest import ServeProcess


def test_default_timeout_and_memory_apply_to_every_sandbox(monkeypatch):
    server = ServeProcess("--default-timeout", "7", "--memory-mb", "300", "--max-sandboxes", "3")
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        # A raw create without "timeout" (the SDKs always send one) lives --default-timeout seconds.
        created = httpx.post(server.env["E2B_API_URL"] + "/sandboxes", headers={"X-API-KEY": server.env["E2B_API_KEY"]},
                             json={"templateID": "code-interpreter-v1"}, timeout=60)
        assert created.status_code == 201, created.text
        info = Sandbox.get_info(created.json()["sandboxID"])
        assert round((info.end_at - info.started_at).total_seconds()) == 7
        assert info.memory_mb == 300
        Sandbox.kill(created.json()["sandboxID"])

        with Sandbox.create(timeout=60) as sandbox:  # the SDK names its timeout: that one counts
            info = sandbox.get_info()
            assert round((info.end_at - info.started_at).total_seconds()) == 60 and info.memory_mb == 300
            held = sandbox.run_code("blocks = [bytearray(1 << 20) for _ in range(100)]\nlen(blocks)")
            assert held.text == "100", held
            too_much = sandbox.run_code("more = [bytearray(1 << 20) for _ in range(400)]\nlen(more)")
            assert too_much.error is not None and too_much.text is None, too_much
    finally:
        assert server.stop() == 0

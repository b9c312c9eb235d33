"""What `e2beval serve` does not offer (docs/serve.md: pause/resume, snapshots, fork, logs, PTY calls) is
answered as such — 501 with a message that names the call and where the served ones are listed, and a Connect
`unimplemented` error for envd methods — never a silent success or a misleading 404; the sandbox keeps working."""
import json

import httpx
import pytest
from e2b_code_interpreter import Sandbox


@pytest.mark.parametrize("operation", ["pause", "resume", "logs", "snapshots", "fork"])
def test_unoffered_sandbox_operations_are_501_naming_the_operation(serve, sandbox, operation):
    method = "GET" if operation == "logs" else "POST"
    answer = httpx.request(method, f"{serve.env['E2B_API_URL']}/sandboxes/{sandbox.sandbox_id}/{operation}",
                           headers={"X-API-KEY": serve.env["E2B_API_KEY"]}, timeout=60)
    assert answer.status_code == 501
    body = answer.json()
    assert f"does not offer sandbox {operation}" in body["message"] and "docs/serve.md" in body["message"]
    assert sandbox.run_code("6 * 7").text == "42"


def test_the_official_sdks_pause_fails_with_the_servers_reason(sandbox):
    with pytest.raises(Exception, match="does not offer sandbox pause"):
        sandbox.pause()
    assert sandbox.is_running()


def test_an_unoffered_envd_method_is_a_connect_unimplemented_error(serve, sandbox):
    # process.Process/Update resizes a PTY, which serve does not offer.
    answer = httpx.post(serve.env["E2B_SANDBOX_URL"] + "/process.Process/Update",
                        headers={"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": "49983",
                                 "X-Access-Token": sandbox._envd_access_token, "Content-Type": "application/json"},
                        content=json.dumps({"process": {"pid": 1}, "pty": {"size": {"cols": 80, "rows": 24}}}), timeout=60)
    assert answer.status_code == 501
    error = answer.json()
    assert error["code"] == "unimplemented"
    assert "does not offer process.Process/Update" in error["message"] and "docs/serve.md" in error["message"]
    assert sandbox.commands.run("echo still here").stdout == "still here\n"

"""Per-sandbox access tokens: a sandbox's code interpreter (49999) and envd (49983) answer only a client that
holds the tokens the control plane returned on create (envdAccessToken, trafficAccessToken), never one that
merely knows the sandbox's id. The official SDK carries them by itself; raw HTTP without them is refused."""
import json
import re
import struct

import httpx
import pytest
from e2b import AuthenticationException
from e2b_code_interpreter import Sandbox


def _sandbox_request(serve, sandbox, method, path, port, headers=None, **kwargs):
    all_headers = {"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": str(port), **(headers or {})}
    return httpx.request(method, serve.env["E2B_SANDBOX_URL"] + path, headers=all_headers, timeout=60, **kwargs)


def _execute(serve, sandbox, headers=None):
    return _sandbox_request(serve, sandbox, "POST", "/execute", 49999, headers, json={"code": "6 * 7"})


def _start(serve, sandbox, headers=None):
    message = json.dumps({"process": {"cmd": "/bin/bash", "args": ["-c", "echo started"]}}).encode()
    return _sandbox_request(serve, sandbox, "POST", "/process.Process/Start", 49983,
                            {"Content-Type": "application/connect+json", **(headers or {})},
                            content=struct.pack(">BI", 0, len(message)) + message)


def _read_file(serve, sandbox, headers=None, **params):
    return _sandbox_request(serve, sandbox, "GET", "/files", 49983, headers, params={"path": "/home/user/secret.txt", **params})


WRONG = {"X-Access-Token": "0" * 64}


def test_create_returns_tokens_and_the_sdk_works_with_them(sandbox):
    assert re.fullmatch(r"[0-9a-f]{64}", sandbox._envd_access_token)
    assert re.fullmatch(r"[0-9a-f]{64}", sandbox.traffic_access_token)
    assert sandbox._envd_access_token != sandbox.traffic_access_token
    assert sandbox.run_code("6 * 7").text == "42"
    context = sandbox.create_code_context()  # /contexts: the SDK sends only E2B-Traffic-Access-Token
    assert sandbox.run_code("1 + 1", context=context).text == "2"
    assert sandbox.commands.run("echo ok").stdout == "ok\n"
    sandbox.files.write("/home/user/a.txt", "a")
    assert sandbox.files.read("/home/user/a.txt") == "a"
    again = Sandbox.connect(sandbox.sandbox_id)  # connect returns the same tokens
    assert again._envd_access_token == sandbox._envd_access_token
    assert again.run_code("2 * 3").text == "6"


def test_execute_needs_the_token(serve, sandbox):
    assert _execute(serve, sandbox).status_code == 401
    refused = _execute(serve, sandbox, WRONG)
    assert refused.status_code == 401 and refused.json()["code"] == 401
    assert "access token" in refused.json()["message"]
    # The traffic token of another sandbox is no key to this one.
    other = Sandbox.create(timeout=60)
    try:
        assert _execute(serve, sandbox, {"X-Access-Token": other._envd_access_token}).status_code == 401
        assert _execute(serve, sandbox, {"E2B-Traffic-Access-Token": other.traffic_access_token}).status_code == 401
    finally:
        other.kill()
    served = _execute(serve, sandbox, {"X-Access-Token": sandbox._envd_access_token})
    assert served.status_code == 200 and '"text":"42"' in served.text.replace(" ", "")
    assert _execute(serve, sandbox, {"E2B-Traffic-Access-Token": sandbox.traffic_access_token}).status_code == 200


def test_contexts_need_a_token(serve, sandbox):
    assert _sandbox_request(serve, sandbox, "GET", "/contexts", 49999).status_code == 401
    assert _sandbox_request(serve, sandbox, "GET", "/contexts", 49999,
                            {"E2B-Traffic-Access-Token": sandbox.traffic_access_token}).status_code == 200


def test_envd_start_needs_the_token(serve, sandbox):
    for headers in (None, WRONG):
        refused = _start(serve, sandbox, headers)
        assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"
    served = _start(serve, sandbox, {"X-Access-Token": sandbox._envd_access_token})
    assert served.status_code == 200
    assert b"started" in served.content or b"c3RhcnRlZA" in served.content  # the output, base64 in the event


def test_files_need_the_token_or_a_valid_signature(serve, sandbox):
    sandbox.files.write("/home/user/secret.txt", "secret")
    for headers in (None, WRONG):
        refused = _read_file(serve, sandbox, headers)
        assert refused.status_code == 401 and "secret" not in refused.text
    refused_upload = _sandbox_request(serve, sandbox, "POST", "/files", 49983,
                                      {"Content-Type": "application/octet-stream"},
                                      params={"path": "/home/user/secret.txt"}, content=b"overwritten")
    assert refused_upload.status_code == 401
    assert _read_file(serve, sandbox, {"X-Access-Token": sandbox._envd_access_token}).text == "secret"
    # The SDK's signed URLs: no header, the signature in the query.
    signed = httpx.get(sandbox.download_url("/home/user/secret.txt"),
                       headers={"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": "49983"}, timeout=60)
    assert signed.status_code == 200 and signed.text == "secret"
    forged = _read_file(serve, sandbox, signature="v1_" + "A" * 43)
    assert forged.status_code == 401
    expired_url = sandbox.download_url("/home/user/secret.txt", use_signature_expiration=-10)
    expired = httpx.get(expired_url, headers={"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": "49983"}, timeout=60)
    assert expired.status_code == 401
    # A read signature does not sign a write.
    write_with_read_signature = httpx.post(sandbox.download_url("/home/user/secret.txt"), content=b"overwritten",
                                           headers={"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": "49983",
                                                    "Content-Type": "application/octet-stream"}, timeout=60)
    assert write_with_read_signature.status_code == 401
    assert sandbox.files.read("/home/user/secret.txt") == "secret"


def test_a_signed_url_alone_names_its_sandbox(serve, sandbox):
    # E2B's test_download_url_with_signing: the URL fetched as it is (urllib, no E2B headers) with E2B_SANDBOX_URL
    # pointing at the server; the signature is what names the sandbox.
    import urllib.error
    import urllib.request
    sandbox.files.write("signed.txt", "signed content")
    for url in (sandbox.download_url("signed.txt", "user"), sandbox.download_url("signed.txt", "user", 120)):
        with urllib.request.urlopen(url, timeout=60) as answer:
            assert (answer.status, answer.read()) == (200, b"signed content")
    with pytest.raises(urllib.error.HTTPError) as expired:
        urllib.request.urlopen(sandbox.download_url("signed.txt", "user", use_signature_expiration=-120), timeout=60)
    assert expired.value.code == 401
    assert json.loads(expired.value.read()) == {"code": 401, "message": "signature is already expired"}
    # A forged signature names no sandbox: the control plane refuses it for want of an API key.
    forged = re.sub(r"signature=[^&]+", "signature=v1_" + "A" * 43, sandbox.download_url("signed.txt", "user"))
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(forged, timeout=60)
    assert refused.value.code == 401 and b"signed content" not in refused.value.read()


def test_the_sdk_reports_a_wrong_token_as_an_authentication_error(sandbox):
    sandbox.files.write("/home/user/b.txt", "b")
    # The SDK's own envd client, its token replaced: what a client with a stale or forged token sees.
    sandbox.files._envd_api_download.headers["X-Access-Token"] = "0" * 64
    with pytest.raises(AuthenticationException):
        sandbox.files.read("/home/user/b.txt")

"""ServeProcess with a key of the test's own (--api-key): serve prints two export lines then, not three, and the
fixture must not wait for a third (it used to hang forever there)."""
import json
import urllib.error
import urllib.request

import pytest

from serve_process import ServeProcess

GIVEN_KEY = "e2b_" + "5" * 40


def _list(server, key):
    request = urllib.request.Request(server.env["E2B_API_URL"] + "/v2/sandboxes", headers={"X-API-KEY": key})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def test_serve_with_a_given_api_key_starts_and_accepts_only_that_key():
    server = ServeProcess("--api-key", GIVEN_KEY, "--ready-sandboxes", "0")
    try:
        assert server.env["E2B_API_KEY"] == GIVEN_KEY
        assert server.env["E2B_API_URL"].startswith("http://127.0.0.1:")
        assert _list(server, GIVEN_KEY) == []
        with pytest.raises(urllib.error.HTTPError) as refused:
            _list(server, "e2b_" + "6" * 40)
        assert refused.value.code == 401
    finally:
        assert server.stop() == 0

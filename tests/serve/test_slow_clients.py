"""Slow or abusive clients cannot hold `e2beval serve`: a request's headers and body have deadlines, a kept-alive
connection an idle timeout, and open connections a cap; meanwhile other clients are served, and a streaming
answer (/execute) is not cut by any of these. The deadlines are set short here with the serve options, and the
tests assert what the server does (closes the socket, answers the other client), not how long it took."""
import socket
from urllib.parse import urlsplit

import httpx
import pytest
from e2b_code_interpreter import Sandbox

from serve_process import ServeProcess
from support.processes import tcp_connections
from support.waiting import until

# How long a test waits for the server to act on a 1 s deadline before calling it a failure: a bound, not a
# measurement.
PATIENCE = 60


@pytest.fixture
def short_deadlines(monkeypatch):
    server = ServeProcess("--header-timeout", "1", "--body-timeout", "1", "--idle-timeout", "1")
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)
    yield server
    server.stop()


def _served(server) -> bool:
    try:
        return _list(server).status_code == 200
    except httpx.TransportError:
        return False


def _connect(server):
    address = urlsplit(server.env["E2B_API_URL"])
    connection = socket.create_connection((address.hostname, address.port), timeout=PATIENCE)
    return connection


def _closed_by_server(connection):
    """True when the server closed the connection (end of stream, or a reset), without answering a request."""
    try:
        return connection.recv(4096) == b""
    except ConnectionResetError:
        return True


def _list(server):
    return httpx.get(server.env["E2B_API_URL"] + "/v2/sandboxes", headers={"X-API-KEY": server.env["E2B_API_KEY"]},
                     timeout=PATIENCE)


def test_half_a_header_is_cut_off_while_another_client_is_served(short_deadlines):
    stalled = _connect(short_deadlines)
    stalled.sendall(b"GET /v2/sandboxes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-")
    assert _list(short_deadlines).status_code == 200  # served while the other one stalls
    assert _closed_by_server(stalled)
    stalled.close()


def test_a_connection_that_sends_nothing_is_cut_off(short_deadlines):
    silent = _connect(short_deadlines)
    assert _closed_by_server(silent)
    silent.close()


def test_half_a_body_is_cut_off(short_deadlines):
    stalled = _connect(short_deadlines)
    stalled.sendall(b"POST /v2/sandboxes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: " + short_deadlines.env["E2B_API_KEY"].encode() +
                    b"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"templateID\":")
    assert _list(short_deadlines).status_code == 200
    assert _closed_by_server(stalled)
    stalled.close()


def test_an_idle_kept_alive_connection_is_closed(short_deadlines):
    kept = _connect(short_deadlines)
    kept.sendall(b"GET /v2/sandboxes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: " + short_deadlines.env["E2B_API_KEY"].encode() + b"\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.endswith(b"]"):
        chunk = kept.recv(4096)
        assert chunk, "the server closed the connection before answering: " + repr(answer)
        answer += chunk
    assert answer.startswith(b"HTTP/1.1 200")
    assert _closed_by_server(kept)  # no second request came
    kept.close()


def test_streaming_answers_outlast_the_deadlines(short_deadlines):
    sandbox = Sandbox.create(timeout=120)
    try:
        # /execute streams for 3 s, past every 1 s deadline; so does a command's Start stream.
        assert sandbox.run_code("import time\ntime.sleep(3)\n6 * 7", timeout=60).text == "42"
        assert sandbox.commands.run("sleep 3; echo done", timeout=60).stdout == "done\n"
        # The SDK's pooled connections outlive the idle timeout on the server's side (it closes them all once
        # idle); the next call still works.
        until(lambda: not tcp_connections(short_deadlines.process.pid),
              "the server closing the SDK's idle connections", timeout=PATIENCE)
        assert sandbox.run_code("1 + 1", timeout=60).text == "2"
    finally:
        sandbox.kill()


def test_connections_past_the_cap_are_refused_and_room_comes_back():
    server = ServeProcess("--max-connections", "2", "--max-connections-per-address", "2")
    try:
        held = [_connect(server) for _ in range(2)]
        for connection in held:
            connection.sendall(b"GET /v2/sandboxes HTTP/1.1\r\n")  # half a request: the slot stays taken
        refused = _connect(server)
        answer = b""
        try:
            refused.sendall(b"GET /v2/sandboxes HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            while chunk := refused.recv(4096):
                answer += chunk
        except (ConnectionResetError, BrokenPipeError):
            pass
        assert answer == b"" or answer.startswith(b"HTTP/1.1 503"), answer
        refused.close()
        for connection in held:
            connection.close()
        # Room again once the held connections are gone (the server notices their end on its own time).
        until(lambda: _served(server), "a request served after the held connections closed", timeout=PATIENCE,
              poll=0.2)
    finally:
        server.stop()

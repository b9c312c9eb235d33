"""No one client address can take every connection slot of `e2beval serve` (--max-connections-per-address,
default half of --max-connections): a flood from 127.0.0.1 is refused past its share while a client from
127.0.0.2 (another loopback address, so another client) is still served, and the flooder gets room back as
its connections close. Loopback counts like any address. Bounded waits, not timings."""
import socket
from urllib.parse import urlsplit

import pytest

from serve_process import ServeProcess
from support.waiting import until

PATIENCE = 60


def _connect_from(server, source_address):
    address = urlsplit(server.env["E2B_API_URL"])
    connection = socket.create_connection((address.hostname, address.port), timeout=PATIENCE,
                                          source_address=(source_address, 0))
    return connection


def _hold(server, source_address):
    """A connection that sent half a request: it keeps its slot until the header deadline (10 s by default)."""
    connection = _connect_from(server, source_address)
    connection.sendall(b"GET /v2/sandboxes HTTP/1.1\r\n")
    return connection


def _request(server, source_address):
    """The whole answer to a list request from `source_address`, or what came before the server closed."""
    connection = _connect_from(server, source_address)
    answer = b""
    try:
        connection.sendall(b"GET /v2/sandboxes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-API-KEY: " +
                           server.env["E2B_API_KEY"].encode() + b"\r\n\r\n")
        while chunk := connection.recv(4096):
            answer += chunk
    except (ConnectionResetError, BrokenPipeError):
        pass
    finally:
        connection.close()
    return answer


def _served_within_patience(server, source_address):
    return until(lambda: _request(server, source_address).startswith(b"HTTP/1.1 200"),
                 f"a request from {source_address} being served", timeout=PATIENCE, poll=0.2)


@pytest.mark.parametrize("options, share", [(["--max-connections", "8", "--max-connections-per-address", "3"], 3),
                                            (["--max-connections", "6"], 3)])  # the default: half
def test_one_address_cannot_take_every_slot(options, share):
    server = ServeProcess(*options)
    held = []
    try:
        held = [_hold(server, "127.0.0.1") for _ in range(share)]
        refused = _request(server, "127.0.0.1")
        assert refused == b"" or (refused.startswith(b"HTTP/1.1 503") and b"--max-connections-per-address" in refused), refused
        # Another address still has room, though the flooder holds its whole share.
        assert _request(server, "127.0.0.2").startswith(b"HTTP/1.1 200")
        # The flooder's own slots come back once its connections close.
        for connection in held:
            connection.close()
        held = []
        assert _served_within_patience(server, "127.0.0.1")
    finally:
        for connection in held:
            connection.close()
        server.stop()


def test_two_addresses_together_still_meet_the_overall_cap():
    server = ServeProcess("--max-connections", "4", "--max-connections-per-address", "2")
    held = []
    try:
        held = [_hold(server, "127.0.0.1") for _ in range(2)] + [_hold(server, "127.0.0.2") for _ in range(2)]
        refused = _request(server, "127.0.0.3")
        assert refused == b"" or (refused.startswith(b"HTTP/1.1 503") and b"(--max-connections)" in refused), refused
    finally:
        for connection in held:
            connection.close()
        server.stop()

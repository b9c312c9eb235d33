"""The envd version `e2beval serve` reports, and what the official SDK sends above it (docs/serve.md, "The envd
version reported"). The SDK switches on by the version: at 0.4.0 it stops naming a user (no `username`, no
Authorization header), at 0.5.7 it uploads as application/octet-stream. The server must serve both before the
version it reports may pass them, so the SDK is pointed at 0.5.7 here and its requests are recorded."""
import gzip as gzip_module

import httpx
from e2b import FilesystemEventType, Sandbox
from packaging.version import Version

from support.waiting import until

REPORTED = Version("0.5.7")


def test_the_reported_version_is_the_highest_whose_gates_are_served(sandbox):
    # Every gate up to 0.5.7 is served (0.1.4 recursive watch, 0.1.5 / 0.2.4 metrics, 0.3.0 stdin flag, 0.4.0 no
    # user, 0.5.2 close_stdin, 0.5.7 octet-stream); 0.6.2 (file metadata) is not.
    assert sandbox._envd_version == REPORTED
    assert Sandbox.connect(sandbox.sandbox_id)._envd_version == REPORTED


def sdk_at(sandbox, version):
    """The SDK as it behaves against an envd of `version` (each part keeps its own copy of the version)."""
    sandbox._SandboxBase__envd_version = Version(version)
    sandbox.files._envd_version = Version(version)
    sandbox.commands._envd_version = Version(version)


def test_what_the_sdk_sends_from_0_4_0_to_0_5_7_is_served(sandbox):
    sdk_at(sandbox, "0.5.7")
    sent = []
    for client in vars(sandbox.files).values():  # uploads, downloads and streamed reads have clients of their own
        if isinstance(client, httpx.Client):
            client.event_hooks["request"].append(sent.append)

    sandbox.files.write("/home/user/raw.bin", bytes(range(256)) * 64, use_octet_stream=True)
    sandbox.files.write("/home/user/packed.txt", "squeezed " * 1000, gzip=True)
    sandbox.files.write_files([{"path": "/home/user/one.txt", "data": "1"}, {"path": "/home/user/two.txt", "data": b"2"}],
                              use_octet_stream=True)
    uploads = [request for request in sent if request.method == "POST"]
    assert len(uploads) == 4
    for request in uploads:  # the 0.5.7 upload, with no user named (0.4.0)
        assert request.headers["content-type"] == "application/octet-stream"
        assert "username" not in request.url.params and "authorization" not in request.headers
    assert uploads[1].headers["content-encoding"] == "gzip"
    assert gzip_module.decompress(uploads[1].content) == ("squeezed " * 1000).encode()

    assert sandbox.files.read("/home/user/raw.bin", format="bytes") == bytes(range(256)) * 64
    assert sandbox.files.read("/home/user/packed.txt") == "squeezed " * 1000
    assert (sandbox.files.read("/home/user/one.txt"), sandbox.files.read("/home/user/two.txt")) == ("1", "2")
    reads = [request for request in sent if request.method == "GET"]
    assert reads and all("username" not in request.url.params for request in reads)

    # Signed URLs with no user: the signature is made over an empty user name.
    url = sandbox.download_url("/home/user/one.txt", use_signature_expiration=60)
    assert "username" not in url
    assert httpx.get(url, headers={"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": "49983"},
                     timeout=60).content == b"1"

    # Connect calls without an Authorization header: filesystem, watcher, a command.
    assert [entry.name for entry in sandbox.files.list("/home/user") if entry.name.endswith(".txt")] == [
        "one.txt", "packed.txt", "two.txt"]
    handle = sandbox.files.watch_dir("/home/user", recursive=True)
    assert sandbox.commands.run("echo hi > /home/user/by-command.txt && cat /home/user/by-command.txt").stdout == "hi\n"
    events = []

    def created():
        events.extend(handle.get_new_events())
        return ("by-command.txt", FilesystemEventType.CREATE) in {(event.name, event.type) for event in events}
    until(created, "a create event for by-command.txt", detail=lambda: events)
    handle.stop()

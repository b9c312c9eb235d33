"""envd's directory watching through the official `e2b` SDK against `e2beval serve`: the sync SDK's
files.watch_dir (CreateWatcher, GetWatcherEvents, RemoveWatcher) and the async SDK's (the WatchDir stream):
events for a file written, a file removed, a directory made, recursive events in a subdirectory, stop, a missing
directory, and the access token."""
import asyncio

import httpx
import pytest
from e2b import (AsyncSandbox, FilesystemEventType, InvalidArgumentException, NotFoundException, Sandbox,
                 SandboxException)

from support.waiting import until, until_async

WAIT_SECONDS = 60  # a bound for a broken server, never a timing assertion


def names_and_types(events):
    return {(event.name, event.type) for event in events}


def poll_until(handle, wanted):
    seen = []

    def all_seen():
        seen.extend(handle.get_new_events())
        return set(wanted) <= names_and_types(seen)
    until(all_seen, f"the events {wanted}", timeout=WAIT_SECONDS, poll=0.1, detail=lambda: f"saw {seen}")
    return seen


def envd_call(serve, sandbox_id, method, body, token):
    headers = {"E2b-Sandbox-Id": sandbox_id, "E2b-Sandbox-Port": "49983"}
    if token is not None:
        headers["X-Access-Token"] = token
    return httpx.post(serve.env["E2B_SANDBOX_URL"] + "/filesystem.Filesystem/" + method, headers=headers,
                      json=body, timeout=60)


def test_sync_watch_reports_a_write_a_removal_and_a_new_directory(serve, sandbox):
    sandbox.files.make_dir("/home/user/watched")
    handle = sandbox.files.watch_dir("/home/user/watched")
    assert handle.get_new_events() == []
    sandbox.files.write("/home/user/watched/a.txt", "hello")
    sandbox.commands.run("echo more >> /home/user/watched/a.txt && mkdir /home/user/watched/sub")
    sandbox.files.remove("/home/user/watched/a.txt")
    poll_until(handle, [("a.txt", FilesystemEventType.CREATE), ("a.txt", FilesystemEventType.WRITE),
                        ("sub", FilesystemEventType.CREATE), ("a.txt", FilesystemEventType.REMOVE)])
    # Not recursive: the subdirectory's file is not reported.
    sandbox.files.write("/home/user/watched/sub/deep.txt", "x")
    sandbox.files.write("/home/user/watched/marker.txt", "x")
    seen = poll_until(handle, [("marker.txt", FilesystemEventType.CREATE)])
    assert not [event for event in seen if "deep" in event.name], seen

    watcher_id = handle._watcher_id
    handle.stop()
    with pytest.raises(SandboxException):
        handle.get_new_events()  # the SDK's own check
    # The server removed it: asking for its events by id is refused as unknown.
    gone = envd_call(serve, sandbox.sandbox_id, "GetWatcherEvents", {"watcherId": watcher_id},
                     sandbox._envd_access_token)
    assert gone.status_code == 404 and gone.json()["code"] == "not_found", gone.text


def test_sync_recursive_watch_reports_events_in_a_subdirectory_made_later(sandbox):
    sandbox.files.make_dir("/home/user/tree")
    handle = sandbox.files.watch_dir("/home/user/tree", recursive=True)
    sandbox.files.make_dir("/home/user/tree/sub/deeper")
    sandbox.files.write("/home/user/tree/sub/deeper/x.txt", "x")
    sandbox.files.remove("/home/user/tree/sub/deeper/x.txt")
    poll_until(handle, [("sub", FilesystemEventType.CREATE), ("sub/deeper", FilesystemEventType.CREATE),
                        ("sub/deeper/x.txt", FilesystemEventType.CREATE),
                        ("sub/deeper/x.txt", FilesystemEventType.REMOVE)])
    handle.stop()


def test_watching_a_missing_directory_raises_not_found(sandbox):
    with pytest.raises(NotFoundException):
        sandbox.files.watch_dir("/home/user/no-such-dir")

    async def watch_missing():
        async_sandbox = await AsyncSandbox.connect(sandbox.sandbox_id)
        await async_sandbox.files.watch_dir("/home/user/no-such-dir", on_event=lambda event: None)

    with pytest.raises(NotFoundException):
        asyncio.run(watch_missing())


def test_watcher_calls_and_watch_dir_without_the_token_are_refused(serve, sandbox):
    for token in (None, "0" * 64):
        refused = envd_call(serve, sandbox.sandbox_id, "CreateWatcher", {"path": "/home/user"}, token)
        assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated", refused.text
    stream = httpx.post(serve.env["E2B_SANDBOX_URL"] + "/filesystem.Filesystem/WatchDir",
                        headers={"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": "49983",
                                 "Content-Type": "application/connect+json"},
                        content=b"\0\0\0\0\x16" + b'{"path": "/home/user"}', timeout=60)
    assert stream.status_code == 401, stream.text
    served = envd_call(serve, sandbox.sandbox_id, "CreateWatcher", {"path": "/home/user"}, sandbox._envd_access_token)
    assert served.status_code == 200 and served.json()["watcherId"], served.text


def test_async_watch_dir_streams_events_recursively_and_stops(sandbox):
    async def scenario():
        async_sandbox = await AsyncSandbox.connect(sandbox.sandbox_id)
        await async_sandbox.files.make_dir("/home/user/live")
        events, exits = [], []
        handle = await async_sandbox.files.watch_dir("/home/user/live", on_event=events.append,
                                                     on_exit=exits.append, recursive=True)
        await async_sandbox.files.write("/home/user/live/file.txt", "data")
        await async_sandbox.files.make_dir("/home/user/live/sub")
        await async_sandbox.files.write("/home/user/live/sub/inner.txt", "inner")
        await async_sandbox.files.remove("/home/user/live/file.txt")
        wanted = {("file.txt", FilesystemEventType.CREATE), ("file.txt", FilesystemEventType.WRITE),
                  ("sub", FilesystemEventType.CREATE), ("sub/inner.txt", FilesystemEventType.CREATE),
                  ("file.txt", FilesystemEventType.REMOVE)}
        await until_async(lambda: wanted <= names_and_types(events), f"the events {wanted}", timeout=WAIT_SECONDS,
                          detail=lambda: f"saw {events}")
        await handle.stop()
        assert exits == [None]  # a stop is a clean end
        # Each stopped stream's watcher is removed on the server: after 20 streams opened and stopped, the 64
        # watchers a session may hold can all be created again (once the server has seen the streams close).
        for _ in range(20):
            handle = await async_sandbox.files.watch_dir("/home/user/live", on_event=lambda event: None)
            await handle.stop()

    asyncio.run(scenario())
    def all_64_created():
        handles = []
        try:
            for _ in range(64):
                handles.append(sandbox.files.watch_dir("/home/user/live"))
            return True
        except InvalidArgumentException:  # some of the 20 are not gone yet
            return False
        finally:
            for handle in handles:
                handle.stop()
    until(all_64_created, "the removal of the stopped streams' watchers (64 created again)", timeout=WAIT_SECONDS,
          poll=0.2)


def test_async_watch_dir_ends_at_its_timeout_and_when_its_directory_goes(sandbox):
    from e2b import TimeoutException

    async def scenario():
        async_sandbox = await AsyncSandbox.connect(sandbox.sandbox_id)
        await async_sandbox.files.make_dir("/home/user/brief")
        await async_sandbox.files.make_dir("/home/user/doomed")
        timed, gone, events = [], [], []
        await async_sandbox.files.watch_dir("/home/user/brief", on_event=lambda event: None, on_exit=timed.append,
                                            timeout=1)
        await async_sandbox.files.watch_dir("/home/user/doomed", on_event=events.append, on_exit=gone.append)
        await async_sandbox.files.remove("/home/user/doomed")
        await until_async(lambda: timed and gone, "the end of both watchers", timeout=WAIT_SECONDS,
                          detail=lambda: (timed, gone))
        assert isinstance(timed[0], TimeoutException), timed
        assert gone == [None]  # a clean end: nothing more can come
        assert (".", FilesystemEventType.REMOVE) in names_and_types(events)  # envd names the directory itself "."

    asyncio.run(scenario())

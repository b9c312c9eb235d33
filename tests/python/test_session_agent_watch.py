# The session agent's directory watchers (watch_start, watch_events, watch_stop; docs/session-protocol.md,
# "Watchers"), driven directly on the host like tests/python/test_session_agent.py: real inotify, real files.
import base64
import os

import pytest

from support.waiting import until
from test_session_agent import WAIT_SECONDS, AgentProcess


@pytest.fixture
def agent(tmp_path):
    process = AgentProcess(tmp_path)
    yield process
    process.close()


def reply(agent, op, **fields):
    events = agent.call(op, **fields)
    assert events[-1]["type"] == "reply", events
    return events[-1]


def events_until(agent, watcher, wanted):
    """Drains the watcher until every (name, type) of `wanted` was seen (inotify delivers asynchronously);
    returns all the events drained. The wait is a bound for a broken agent, not a timing assertion."""
    seen = []

    def all_seen():
        seen.extend(reply(agent, "watch_events", watcher=watcher)["events"])
        return set(wanted) <= {(e["name"], e["type"]) for e in seen}
    until(all_seen, f"the watcher's events {wanted}", timeout=WAIT_SECONDS, detail=lambda: f"saw {seen}")
    return seen


def test_a_watcher_reports_writes_removals_directories_and_chmod_with_names_relative_to_it(agent):
    (agent.home / "watched").mkdir()
    watcher = reply(agent, "watch_start", path="watched")["watcher"]
    assert reply(agent, "watch_events", watcher=watcher)["events"] == []

    reply(agent, "files_write", path="watched/a.txt", data=base64.b64encode(b"one").decode())
    # files_write stages the data beside the target and renames it over: reported as the target's create and
    # write, never under the staging file's name.
    seen = events_until(agent, watcher, [("a.txt", "create"), ("a.txt", "write")])
    assert all(not e["name"].startswith(".e2beval-write-") for e in seen), seen

    with open(agent.home / "watched" / "b.txt", "w") as f:
        f.write("appended by a process")
    os.chmod(agent.home / "watched" / "b.txt", 0o600)
    reply(agent, "files_make_dir", path="watched/sub")
    reply(agent, "files_rename", old_path="watched/b.txt", new_path="watched/c.txt")
    reply(agent, "files_remove", path="watched/a.txt")
    events_until(agent, watcher, [("b.txt", "create"), ("b.txt", "write"), ("b.txt", "chmod"), ("sub", "create"),
                                  ("b.txt", "rename"), ("c.txt", "create"), ("a.txt", "remove")])

    # Not recursive: a file in the new subdirectory is not reported.
    reply(agent, "files_write", path="watched/sub/deep.txt", data="")
    reply(agent, "files_write", path="watched/marker.txt", data="")
    seen = events_until(agent, watcher, [("marker.txt", "create")])
    assert not [e for e in seen if "deep" in e["name"]], seen

    reply(agent, "watch_stop", watcher=watcher)
    gone = agent.call("watch_events", watcher=watcher)[-1]
    assert gone["type"] == "failure" and gone["kind"] == "not_found", gone


def test_a_recursive_watcher_follows_directories_made_after_it_started(agent):
    (agent.home / "tree" / "old").mkdir(parents=True)
    watcher = reply(agent, "watch_start", path=str(agent.home / "tree"), recursive=True)["watcher"]
    reply(agent, "files_write", path="tree/old/x.txt", data="")
    # made after the watch started, with a file in it at once: whether the watch on `new/deeper` was in place
    # before the file came or not, the file is reported.
    os.makedirs(agent.home / "tree" / "new" / "deeper")
    (agent.home / "tree" / "new" / "deeper" / "y.txt").write_text("y")
    seen = events_until(agent, watcher, [("old/x.txt", "create"), ("new", "create"), ("new/deeper", "create"),
                                         ("new/deeper/y.txt", "create")])
    (agent.home / "tree" / "new" / "deeper" / "y.txt").unlink()
    events_until(agent, watcher, [("new/deeper/y.txt", "remove")])
    assert seen
    # A directory renamed inside the tree is watched under its new name only.
    os.rename(agent.home / "tree" / "new", agent.home / "tree" / "renamed")
    (agent.home / "tree" / "renamed" / "deeper" / "z.txt").write_text("z")
    seen = events_until(agent, watcher, [("new", "rename"), ("renamed", "create"), ("renamed/deeper/z.txt", "create")])
    assert not [e for e in seen if e["name"].startswith("new/")], seen


def test_watch_start_refuses_what_it_cannot_watch_and_the_buffer_is_capped(agent):
    missing = agent.call("watch_start", path="no/such/dir")[-1]
    assert missing["type"] == "failure" and missing["kind"] == "not_found", missing
    (agent.home / "file.txt").write_text("")
    not_dir = agent.call("watch_start", path="file.txt")[-1]
    assert not_dir["type"] == "failure" and not_dir["kind"] == "invalid", not_dir
    bad = agent.call("watch_start", path="", recursive=True)[-1]
    assert bad["type"] == "failure" and bad["kind"] == "invalid", bad

    (agent.home / "busy").mkdir()
    watcher = reply(agent, "watch_start", path="busy")["watcher"]
    for index in range(10_050):  # past the cap of 10,000 events per watcher
        (agent.home / "busy" / ("f%05d" % index)).touch()
    drained = reply(agent, "watch_events", watcher=watcher)
    assert len(drained["events"]) == 10_000
    assert drained["dropped"] >= 50
    assert drained["events"][0] == {"name": "f00000", "type": "create"}  # the oldest are kept
    after = reply(agent, "watch_events", watcher=watcher)
    assert after["dropped"] == 0 and after["events"] == []


def test_a_watcher_ends_when_its_directory_goes_and_is_served_while_a_command_streams(agent):
    (agent.home / "doomed").mkdir()
    watcher = reply(agent, "watch_start", path="doomed")["watcher"]
    # A foreground command streams, waiting on its stdin; watch_events is served meanwhile, not queued behind it.
    command = agent.send("run_command", cmd="cat > /dev/null; rmdir doomed", background=False, stdin=True)
    start = agent.next_event()
    assert start["id"] == command and start["type"] == "start", start
    served = agent.send("watch_events", watcher=watcher)
    answer = agent.next_event()
    assert answer["id"] == served and answer["type"] == "reply", answer
    closed = agent.send("command_close_stdin", pid=start["pid"])
    events = []
    while not events or events[-1]["type"] != "end":
        event = agent.next_event()
        if event["id"] == command:
            events.append(event)
        else:
            assert event["id"] == closed and event["type"] == "reply", event
    assert events[-1]["exit_code"] == 0, events
    until(lambda: reply(agent, "watch_events", watcher=watcher)["ended"], "the watcher's end", timeout=WAIT_SECONDS)
    reply(agent, "watch_stop", watcher=watcher)

# The session agent serves requests concurrently (docs/session-protocol.md, "Requests"): no request waits for
# another's stream; cells of one context run in order, cells of different contexts at once; several
# followers of one command; interrupts name their target; E2B's process calls (signals, stdin bytes, list,
# tags). Driven directly as a subprocess on the host, like test_session_agent.py.
import base64
import json

import pytest

from test_session_agent import FINAL_TYPES, AgentProcess, Cell


@pytest.fixture
def agent(tmp_path):
    process = AgentProcess(tmp_path)
    yield process
    process.close()


def gather(agent, ids, on_event=None):
    """Events of several requests that stream at once, by id, until each has its final event."""
    events = {request_id: [] for request_id in ids}
    open_ids = set(ids)
    while open_ids:
        event = agent.next_event()
        assert event["id"] in events, "event of a request nobody sent: %r" % event
        events[event["id"]].append(event)
        if on_event is not None:
            on_event(event)
        if event["type"] in FINAL_TYPES:
            open_ids.discard(event["id"])
    return events


def text_of(events, stream="stdout"):
    return "".join(e["text"] for e in events if e["type"] == stream)


def test_two_command_streams_and_a_cell_run_at_once(agent):
    first = agent.send("run_command", cmd="echo one-start; while [ ! -e go ]; do sleep 0.05; done; echo one-end")
    second = agent.send("run_command", cmd="echo two-start; while [ ! -e go ]; do sleep 0.05; done; echo two-end")
    # The cell releases both commands: had it waited for their streams, nothing would ever end.
    cell = agent.send("run_code", code="open('go', 'w').close()\n6 * 7")
    events = gather(agent, [first, second, cell])
    assert text_of(events[first]) == "one-start\none-end\n"
    assert text_of(events[second]) == "two-start\ntwo-end\n"
    assert events[first][-1]["type"] == events[second][-1]["type"] == "end"
    assert Cell(events[cell]).text == "42"


def test_cells_of_different_contexts_run_at_once_and_of_one_context_in_order(agent):
    other = agent.call("create_context")[-1]["context"]["id"]
    waiting = agent.send("run_code", code="import os, time\nwhile not os.path.exists('released'): time.sleep(0.05)\n'released'")
    queued = agent.send("run_code", code="'second of the default context'")
    releasing = agent.send("run_code", context=other, code="open('released', 'w').close()\n'done'")
    order = []
    events = gather(agent, [waiting, queued, releasing],
                    lambda event: order.append(event["id"]) if event["type"] == "end_of_execution" else None)
    assert Cell(events[waiting]).text == "'released'"
    assert Cell(events[releasing]).text == "'done'"
    assert Cell(events[queued]).text == "'second of the default context'"
    assert order.index(waiting) < order.index(queued)  # FIFO per context
    assert Cell(events[waiting]).count + 1 == Cell(events[queued]).count


def test_interrupt_names_its_target_and_leaves_the_other_cell_running(agent):
    other = agent.call("create_context")[-1]["context"]["id"]
    stopped = agent.send("run_code", code="import time\nprint('stopped-started', flush=True)\ntime.sleep(600)")
    kept = agent.send("run_code", context=other,
                      code="import os, time\nprint('kept-started', flush=True)\n"
                           "while not os.path.exists('finish'): time.sleep(0.05)\n'kept'")
    started = set()

    def on_event(event):
        if event["type"] == "stdout":
            started.add(event["id"])
            if started == {stopped, kept} and not hasattr(on_event, "sent"):
                on_event.sent = True
                agent.send("interrupt", target=stopped)

    def finish_kept(event):
        on_event(event)
        if event["id"] == stopped and event["type"] == "end_of_execution":
            agent.send("files_write", path="finish", data="")

    events = {}
    pending = {stopped, kept}
    while pending:
        event = agent.next_event()
        if event["id"] not in (stopped, kept):
            continue  # the interrupt has no event; files_write's reply
        events.setdefault(event["id"], []).append(event)
        finish_kept(event)
        if event["type"] in FINAL_TYPES:
            pending.discard(event["id"])
    assert Cell(events[stopped]).error["name"] == "KeyboardInterrupt"
    assert Cell(events[kept]).error is None
    assert Cell(events[kept]).text == "'kept'"


def test_an_interrupt_of_a_waiting_cell_ends_it_before_it_runs(agent):
    running = agent.send("run_code", code="import os, time\nwhile not os.path.exists('go'): time.sleep(0.05)")
    waiting = agent.send("run_code", code="open('ran', 'w').close()")
    agent.send("interrupt", target=waiting)
    cancelled = agent.collect(waiting)
    assert Cell(cancelled).error["name"] == "KeyboardInterrupt"
    assert Cell(cancelled).count is None  # it never ran
    agent.call("files_write", path="go", data="")
    assert Cell(agent.collect(running)).error is None
    assert agent.call("files_exists", path="ran")[-1]["exists"] is False


def test_several_followers_get_live_output_and_each_gets_end(agent):
    pid = agent.call("run_command", cmd="cat", background=True, stdin=True)[-1]["pid"]
    agent.call("command_send_stdin", pid=pid, data="buffered\n")
    first = agent.send("command_wait", pid=pid)
    assert agent.next_event() == {**agent_event_like(first, "stdout"), "text": "buffered\n"}
    second = agent.send("command_wait", pid=pid)
    agent.call("command_list")  # served while both follow; the second is attached by then (requests in order)
    # (the reply comes before the output: the agent answers as it writes, and reads cat's output later)
    agent.call("command_send_stdin", pid=pid, data_base64=base64.b64encode(b"live\n").decode())
    closing = agent.send("command_close_stdin", pid=pid)  # its reply may come after the followers' output
    events = gather(agent, [first, second, closing])
    assert events[closing] == [{"id": closing, "type": "reply"}]
    assert text_of(events[first]) == "live\n"
    assert text_of(events[second]) == "live\n"  # from when it attached: not what the first one got before
    assert events[first][-1]["type"] == events[second][-1]["type"] == "end"
    assert events[first][-1]["exit_code"] == 0
    assert agent.call("command_wait", pid=pid)[-1]["kind"] == "not_found"  # collected


def agent_event_like(request_id, stream):
    """Matches any stdout/stderr event of `request_id` but its text (timestamps differ)."""
    class Any:
        def __eq__(self, other):
            return True
    return {"id": request_id, "type": stream, "timestamp": Any()}


def test_stdin_bytes_reach_the_command_unchanged(agent):
    pid = agent.call("run_command", cmd="head -c 3 | od -An -tx1", background=True, stdin=True)[-1]["pid"]
    agent.call("command_send_stdin", pid=pid, data_base64=base64.b64encode(b"\xff\x00A").decode())
    events = agent.call("command_wait", pid=pid)
    assert text_of(events).split() == ["ff", "00", "41"]
    bad = agent.call("command_send_stdin", pid=pid, data_base64="not base64!")[-1]
    assert bad["type"] == "failure" and bad["kind"] in ("invalid", "not_found")


def test_sigterm_and_sigkill(agent):
    term = agent.call("run_command", cmd="sleep 100", background=True)[-1]["pid"]
    kill = agent.call("run_command", cmd="sleep 100", background=True)[-1]["pid"]
    assert agent.call("command_kill", pid=term, signal="SIGTERM")[-1]["killed"] is True
    assert agent.call("command_kill", pid=kill, signal="SIGKILL")[-1]["killed"] is True
    assert agent.call("command_wait", pid=term)[-1]["error"] == "signal: terminated"
    assert agent.call("command_wait", pid=kill)[-1]["error"] == "signal: killed"
    refused = agent.call("command_kill", pid=kill, signal="SIGHUP")[-1]
    assert refused["type"] == "failure" and refused["kind"] == "invalid"


def test_list_shows_what_e2b_lists_and_a_tag_selects_the_command(agent):
    pid = agent.call("run_command", cmd="/bin/sh", args=["-c", "echo $GREETING; sleep 100"], envs={"GREETING": "hi"},
                     tag="server", background=True)[-1]["pid"]
    processes = agent.call("command_list")[-1]["processes"]
    assert processes == [{"pid": pid, "cmd": "/bin/sh", "args": ["-c", "echo $GREETING; sleep 100"],
                          "envs": {"GREETING": "hi"}, "cwd": str(agent.home), "tag": "server", "running": True,
                          "background": True}]
    duplicate = agent.call("run_command", cmd="true", tag="server", background=True)[-1]
    assert duplicate["type"] == "failure" and duplicate["kind"] == "invalid"
    waiting = agent.send("command_wait", tag="server")
    output = agent.next_event()
    assert (output["id"], output["text"]) == (waiting, "hi\n")  # it runs: now it is killed, by its tag
    kill = agent.send("command_kill", tag="server")
    events = gather(agent, [waiting, kill])
    assert events[kill][-1]["killed"] is True
    assert events[waiting][-1]["error"] == "signal: killed"


def test_a_detached_follower_leaves_the_command_running_for_the_next(agent):
    request = agent.send("run_command", cmd="echo before; while [ ! -e go ]; do sleep 0.05; done; echo after")
    start = agent.next_event()
    assert start["type"] == "start"
    assert agent.next_event()["text"] == "before\n"
    agent.send("interrupt", target=request, mode="detach")
    assert agent.next_event() == {"id": request, "type": "reply", "detached": True}
    assert [p["running"] for p in agent.call("command_list")[-1]["processes"]] == [True]
    follower = agent.send("command_wait", pid=start["pid"])
    agent.send_line(json.dumps({"id": 999, "op": "files_write", "path": "go", "data": ""}).encode())
    events = gather(agent, [follower, 999])
    assert text_of(events[follower]) == "after\n"
    assert events[follower][-1]["exit_code"] == 0

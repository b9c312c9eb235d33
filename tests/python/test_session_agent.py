# The session agent (src/local/session_agent/) driven directly as a subprocess on the host, through the
# protocol of docs/session-protocol.md. These tests check the protocol; the isolation around the agent comes
# from the sandbox, which the C++ session tests cover.
import base64
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support.processes import gone
from support.waiting import until

AGENT_SOURCES = Path(__file__).resolve().parents[2] / "src" / "local"


def agent_program():
    """The agent as the build embeds it (cmake/session_agent.cmake): every file of the package and the protocol's
    table in AGENT_FILES, then launch.py, which imports the package from there."""
    package = AGENT_SOURCES / "session_agent"
    files = {path.relative_to(AGENT_SOURCES).as_posix(): path.read_text() for path in sorted(package.rglob("*"))
             if path.suffix in (".py", ".js", ".sh") and path.name != "launch.py"}
    files["session_protocol.json"] = (AGENT_SOURCES / "session_protocol.json").read_text()
    return "AGENT_FILES = %r\n%s" % (files, (package / "launch.py").read_text())


NODE = shutil.which("node") or "/usr/bin/node"
FINAL_TYPES = {"end_of_execution", "end", "reply", "failure"}
WAIT_SECONDS = 60  # a bound so a broken agent fails the test instead of hanging it; never a timing assertion

@pytest.fixture
def node_required():
    if not os.access(NODE, os.X_OK):
        pytest.fail("node is not installed: run scripts/setup.sh (JavaScript contexts need it)")


# Node is part of the set-up (scripts/setup.sh), so its absence is a failure, never a skip.
needs_node = pytest.mark.usefixtures("node_required")


class AgentProcess:
    """One agent, started as the host starts it, with a reader thread collecting its events."""

    def __init__(self, directory, node=NODE, preexec_fn=None, extra_env=None):
        self.directory = Path(directory)
        self.home = self.directory / "home"
        self.home.mkdir()
        self.script = self.directory / ".e2beval-agent.py"
        self.script.write_text(agent_program())
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
               "E2BEVAL_AGENT_HOME": str(self.home)}
        if node:
            env["E2BEVAL_NODE"] = node
        env.update(extra_env or {})
        self.proc = subprocess.Popen([sys.executable, "-I", "-B", "-u", str(self.script)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.directory, env=env,
                                     preexec_fn=preexec_fn)
        self.events = queue.Queue()
        self.stderr = bytearray()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.next_id = 0
        self.ready = self.next_event()

    def _read_stdout(self):
        for line in self.proc.stdout:
            self.events.put(json.loads(line))
        self.events.put(None)

    def _read_stderr(self):
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
            self.stderr += chunk

    def next_event(self):
        event = self.events.get(timeout=WAIT_SECONDS)
        assert event is not None, "the agent ended its output; its stderr: %s" % self.stderr.decode(errors="replace")
        return event

    def send_line(self, data):
        self.proc.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        self.proc.stdin.flush()

    def send(self, op, **fields):
        self.next_id += 1
        self.send_line(json.dumps({"id": self.next_id, "op": op, **fields}).encode())
        return self.next_id

    def collect(self, request_id, on_event=None):
        """Events of `request_id` up to and including its final one."""
        events = []
        while True:
            event = self.next_event()
            assert event["id"] == request_id, "event of another request: %r" % event
            events.append(event)
            if on_event is not None:
                on_event(event)
            if event["type"] in FINAL_TYPES:
                return events

    def call(self, op, **fields):
        return self.collect(self.send(op, **fields))

    def run(self, code, **fields):
        return Cell(self.call("run_code", code=code, **fields))

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Cell:
    """A run_code request's events, gathered like E2B's Execution."""

    def __init__(self, events):
        self.events = events
        self.stdout = "".join(e["text"] for e in events if e["type"] == "stdout")
        self.stderr = "".join(e["text"] for e in events if e["type"] == "stderr")
        self.results = [e for e in events if e["type"] == "result"]
        errors = [e for e in events if e["type"] == "error"]
        self.error = errors[0] if errors else None
        timeouts = [e for e in events if e["type"] == "timeout"]
        self.timeout = timeouts[0] if timeouts else None
        counts = [e["execution_count"] for e in events if e["type"] == "number_of_executions"]
        self.count = counts[0] if counts else None
        assert events[-1]["type"] == "end_of_execution", events

    @property
    def text(self):
        main = [r for r in self.results if r["is_main_result"]]
        return main[0]["text"] if main else None


@pytest.fixture
def agent(tmp_path):
    process = AgentProcess(tmp_path)
    yield process
    process.close()


def test_a_default_context_asked_for_at_start_is_serving_when_the_agent_is_ready(tmp_path):
    # What every session's agent is started with (docs/session-protocol.md, "Start"): the default Python
    # context exists before the first request, no cell has run in it, and it is the one the first cell uses.
    # E2B's default JavaScript context is listed too (its kernel starts with its first cell).
    process = AgentProcess(tmp_path, extra_env={"E2BEVAL_AGENT_DEFAULT_CONTEXT": "python"})
    try:
        assert process.ready["type"] == "ready"
        listed = process.call("list_contexts")[-1]["contexts"]
        assert listed == [{"id": "python", "language": "python", "cwd": str(process.home)},
                          {"id": "javascript", "language": "javascript", "cwd": str(process.home)}]
        first = process.run("import os\nx = os.environ.get('E2BEVAL_AGENT_DEFAULT_CONTEXT')\nx is None")
        assert (first.count, first.text, first.error, first.stdout, first.stderr) == (1, "True", None, "", "")
        assert process.run("x is None", context="python").text == "True"
        assert [c["id"] for c in process.call("list_contexts")[-1]["contexts"]] == ["python", "javascript"]
    finally:
        process.close()


def test_without_it_the_default_context_starts_with_the_first_cell(agent):
    assert [c["id"] for c in agent.call("list_contexts")[-1]["contexts"]] == ["python", "javascript"]
    assert kernels_of(agent) == []
    assert agent.run("1 + 1").text == "2"
    assert [c["id"] for c in agent.call("list_contexts")[-1]["contexts"]] == ["python", "javascript"]


def kernels_of(agent):
    """The names of the programs the agent runs now (its kernels and commands: its children, on a host run)."""
    names = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if entry.name.isdigit() and int(fields[1]) == agent.proc.pid:
                names.append(Path(os.readlink(entry / "exe")).name)
        except (OSError, IndexError, ValueError):
            continue
    return sorted(names)


@needs_node
def test_the_default_javascript_context_starts_node_only_for_its_first_cell(agent):
    # E2B lists both default contexts; a session that never runs JavaScript must not pay for starting node.
    assert agent.run("1 + 1").text == "2"
    assert not any(name.startswith("node") for name in kernels_of(agent))
    cell = agent.run("console.log('from node')", context="javascript")
    assert (cell.stdout, cell.error, cell.count) == ("from node\n", None, 1)
    assert any(name.startswith("node") for name in kernels_of(agent))
    assert agent.run("typeof process", language="js").text == "'object'"  # the same context, by language
    assert agent.run("[1].length", language="js").count == 3


def wait_until_gone(pids):
    """Waits until every process of `pids` has ended (a zombie nobody of ours reaps counts as ended)."""
    until(lambda: all(gone(pid) for pid in pids), f"the end of processes {pids}",
          timeout=WAIT_SECONDS, detail=lambda: [pid for pid in pids if not gone(pid)])


# --- start --------------------------------------------------------------------------------------------------
def test_ready_line_names_the_interpreters_and_the_agent_deletes_its_own_file(agent):
    assert agent.ready["type"] == "ready"
    assert agent.ready["python"] == "%d.%d.%d" % sys.version_info[:3]
    assert agent.ready["bash"] is True
    if os.access(NODE, os.X_OK):
        assert agent.ready["node"].startswith("v")
    assert not agent.script.exists()
    assert agent.call("ping")[-1]["type"] == "reply"


# --- Python contexts ----------------------------------------------------------------------------------------
def test_python_state_persists_and_the_last_expression_is_the_main_result(agent):
    first = agent.run("x = 41\nprint('hello')\nx + 1")
    assert first.stdout == "hello\n"
    assert first.text == "42"
    assert first.count == 1
    assert first.error is None
    second = agent.run("x * 2")
    assert second.text == "82"
    assert second.count == 2
    assert agent.run("y = 3").text is None  # an assignment has no value
    assert agent.run("None").results == []
    assert agent.run("__name__").text == "'__main__'"


def test_stdout_event_shape_has_a_utc_timestamp(agent):
    events = agent.call("run_code", code="print('a')")
    chunk = [e for e in events if e["type"] == "stdout"][0]
    assert chunk["text"] == "a\n"
    assert chunk["timestamp"].endswith("Z") and "T" in chunk["timestamp"]


def test_python_exception_gives_name_value_traceback_and_the_context_still_works(agent):
    agent.run("keep = 'kept'")
    cell = agent.run("def f():\n    return 1 / 0\nf()")
    assert cell.error["name"] == "ZeroDivisionError"
    assert cell.error["value"] == "division by zero"
    assert 'File "<cell 2>", line 3' in cell.error["traceback"]
    assert "return 1 / 0" in cell.error["traceback"]  # the cell's source lines are shown
    assert "serve" not in cell.error["traceback"]  # no kernel frames
    assert agent.run("keep").text == "'kept'"


def test_python_syntax_error_is_an_error_event(agent):
    cell = agent.run("x = = 1")
    assert cell.error["name"] == "SyntaxError"
    assert "<cell 1>" in cell.error["traceback"]
    assert agent.run("1 + 1").text == "2"


def test_system_exit_and_keyboard_interrupt_raised_by_a_cell_are_errors_not_the_end(agent):
    assert agent.run("import sys\nsys.exit(3)").error["name"] == "SystemExit"
    assert agent.run("raise KeyboardInterrupt").error["name"] == "KeyboardInterrupt"
    assert agent.run("2 + 2").text == "4"


def test_a_kernel_that_dies_is_reported_and_restarted(agent):
    agent.run("before = 1")
    cell = agent.run("import os\nos._exit(7)")
    assert cell.error["name"] == "KernelDied"
    assert "exit code 7" in cell.error["value"]
    assert agent.run("before").error["name"] == "NameError"  # a fresh kernel
    assert agent.run("1").text == "1"


def test_python_timeout_interrupts_the_cell_and_keeps_the_context(agent):
    agent.run("survivor = 'still here'")
    cell = agent.run("while True:\n    pass", timeout=1)
    assert cell.timeout == {"id": cell.events[0]["id"], "type": "timeout", "seconds": 1,
                            "context_restarted": False}
    assert cell.error is None
    assert agent.run("survivor").text == "'still here'"


def test_python_cell_ignoring_sigint_is_killed_and_the_context_restarted(agent):
    agent.run("survivor = 1")
    cell = agent.run("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass", timeout=1)
    assert cell.timeout["context_restarted"] is True
    after = agent.run("survivor")
    assert after.error["name"] == "NameError"  # state is lost, but the context runs cells again
    assert after.count == 1
    assert agent.run("6 * 7").text == "42"


def test_timeouts_work_even_when_the_agent_was_started_with_sigint_ignored(tmp_path):
    process = AgentProcess(tmp_path, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        process.run("kept = 1")
        cell = process.run("while True:\n    pass", timeout=1)
        assert cell.timeout["context_restarted"] is False
        assert process.run("kept").text == "1"
        events = process.call("run_command", cmd="grep SigIgn /proc/self/status")
        assert "".join(e["text"] for e in events if e["type"] == "stdout") == "SigIgn:\t0000000000000000\n"
    finally:
        process.close()


def run_interrupted_once_started(agent, code):
    """Runs `code` and sends an interrupt request when its first output arrives (the cell is running by then)."""
    request_id = agent.send("run_code", code=code)

    def interrupt_once_started(event):
        if event["type"] == "stdout":
            agent.send_line(json.dumps({"id": request_id, "op": "interrupt"}).encode())

    return Cell(agent.collect(request_id, interrupt_once_started))


def test_interrupt_request_stops_a_running_cell(agent):
    cell = run_interrupted_once_started(agent, "import time\nprint('started', flush=True)\ntime.sleep(600)")
    assert cell.error["name"] == "KeyboardInterrupt"
    assert 'File "<cell 1>"' in cell.error["traceback"]  # where it was: the print or the sleep
    assert "on_sigint" not in cell.error["traceback"]  # the kernel's handler that raised it is not shown
    assert cell.timeout is None
    assert agent.run("'alive'").text == "'alive'"


def test_interrupt_of_a_cell_that_ignores_it_restarts_the_context(agent):
    agent.run("kept = 1")
    code = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('started', flush=True)\nwhile True:\n    pass"
    cell = run_interrupted_once_started(agent, code)
    assert cell.error["name"] == "ContextRestarted"
    assert "state is lost" in cell.error["value"]
    assert agent.run("kept").error["name"] == "NameError"


def test_an_interrupt_that_arrives_after_its_request_ended_is_ignored(agent):
    agent.run("1")
    agent.send_line(json.dumps({"id": 1, "op": "interrupt"}).encode())
    events = agent.call("ping")
    assert [e["type"] for e in events] == ["reply"]


def test_rich_results_and_display(agent):
    code = (
        "class Rich:\n"
        "    def __repr__(self): return 'Rich()'\n"
        "    def _repr_html_(self): return '<b>rich</b>'\n"
        "    def _repr_png_(self): return bytes([137, 80, 78, 71])\n"
        "    def _repr_json_(self): return {'a': [1, 2]}\n"
        "    def _repr_markdown_(self): raise RuntimeError('broken')\n"
        "display('shown')\n"
        "Rich()"
    )
    cell = agent.run(code)
    shown, main = cell.results
    assert shown["is_main_result"] is False and shown["text"] == "'shown'"
    assert main["is_main_result"] is True
    assert main["text"] == "Rich()"
    assert main["html"] == "<b>rich</b>"
    assert base64.b64decode(main["png"]) == bytes([137, 80, 78, 71])
    assert main["json"] == {"a": [1, 2]}
    assert "markdown" not in main  # a failing repr method is skipped


def test_cell_envs_are_set_for_the_cell_only(agent):
    cell = agent.run("import os, subprocess\nprint(subprocess.run(['sh', '-c', 'echo $CELL_VAR'], "
                     "capture_output=True, text=True).stdout, end='')\nos.environ['CELL_VAR']",
                     envs={"CELL_VAR": "per-cell"})
    assert cell.stdout == "per-cell\n"
    assert cell.text == "'per-cell'"
    assert agent.run("import os\nos.environ.get('CELL_VAR')").results == []


def test_top_level_await_in_python(agent):
    agent.run("import asyncio\nasync def twice(v):\n    await asyncio.sleep(0)\n    return 2 * v")
    assert agent.run("value = await twice(21)\nvalue").text == "42"
    assert agent.run("value").text == "42"


def test_output_past_one_mebibyte_is_truncated_with_a_marker_on_that_stream(agent):
    cell = agent.run("import sys\nsys.stdout.write('x' * (3 << 20))\nsys.stdout.flush()\n'done'")
    marker = "\n[e2beval: stdout truncated after 1 MiB; the rest of it was dropped]\n"
    assert cell.stdout == "x" * (1 << 20) + marker
    assert cell.stderr == ""
    assert cell.text == "'done'"


def test_invalid_utf8_output_is_replaced_not_fatal(agent):
    cell = agent.run("import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe end\\n')\nsys.stdout.flush()")
    assert cell.stdout == "ok \ufffd\ufffd end\n"


# --- contexts -----------------------------------------------------------------------------------------------
def test_created_contexts_have_their_own_state_and_can_be_restarted_and_removed(agent):
    (agent.home / "sub").mkdir()
    created = agent.call("create_context", language="python", cwd="sub")[-1]
    assert created["type"] == "reply"
    context = created["context"]
    assert len(context["id"]) == 12 and context["language"] == "python"
    assert context["cwd"] == str(agent.home / "sub")
    agent.run("where = 'default'")
    agent.run("where = 'mine'", context=context["id"])
    assert agent.run("where").text == "'default'"
    assert agent.run("where", context=context["id"]).text == "'mine'"
    assert agent.run("import os\nos.getcwd()", context=context["id"]).text == repr(str(agent.home / "sub"))
    listed = agent.call("list_contexts")[-1]["contexts"]
    assert {c["id"] for c in listed} == {"python", "javascript", context["id"]}
    assert agent.call("restart_context", context=context["id"])[-1] == {"id": agent.next_id, "type": "reply"}
    restarted = agent.run("where", context=context["id"])
    assert restarted.error["name"] == "NameError" and restarted.count == 1
    assert agent.call("remove_context", context=context["id"])[-1]["type"] == "reply"
    failure = agent.call("run_code", code="1", context=context["id"])[-1]
    assert failure["type"] == "failure" and failure["kind"] == "not_found"


# --- JavaScript contexts ------------------------------------------------------------------------------------
@needs_node
def test_javascript_state_persists_across_cells(agent):
    first = agent.run("var x = 1; let y = 2; const z = 3; console.log('hi')", language="js")
    assert first.stdout == "hi\n"
    assert first.error is None
    second = agent.run("x + y + z", language="javascript")
    assert second.text == "6"
    assert second.count == 2
    agent.run("function twice(v) { return 2 * v }", language="js")
    assert agent.run("twice(y)", language="js").text == "4"
    assert agent.run("require('path').join('a', 'b')", language="js").text == "'a/b'"
    assert agent.run("undefined", language="js").results == []
    assert agent.run("({a: [1, 2]})", language="js").text == "{ a: [ 1, 2 ] }"


@needs_node
def test_javascript_top_level_await_keeps_its_declarations(agent):
    cell = agent.run("let later = await new Promise((resolve) => setTimeout(() => resolve(5), 10)); later * 2",
                     language="js")
    assert cell.text == "10"
    assert agent.run("later", language="js").text == "5"
    imported = agent.run("(await import('path')).join('a', 'b')", language="js")
    assert imported.text == "'a/b'"
    assert imported.stderr == ""  # no warning about the kernel's use of node's loader


@needs_node
def test_javascript_error_gives_name_message_stack_and_the_context_still_works(agent):
    agent.run("let kept = 'kept'", language="js")
    cell = agent.run("function boom() { throw new TypeError('bad thing') }\nboom()", language="js")
    assert cell.error["name"] == "TypeError"
    assert cell.error["value"] == "bad thing"
    assert "<cell 2>:1" in cell.error["traceback"]
    assert "node:vm" not in cell.error["traceback"] and "[eval]" not in cell.error["traceback"]
    syntax = agent.run("let = ;", language="js")
    assert syntax.error["name"] == "SyntaxError"
    assert agent.run("kept", language="js").text == "'kept'"


@needs_node
def test_javascript_timeout_keeps_the_context(agent):
    agent.run("var survivor = 'here'", language="js")
    cell = agent.run("while (true) {}", language="js", timeout=1)
    assert cell.timeout["context_restarted"] is False
    assert cell.error is None
    assert agent.run("survivor", language="js").text == "'here'"


@needs_node
def test_javascript_awaiting_cell_is_interrupted_on_timeout(agent):
    cell = agent.run("await new Promise(() => {})", language="js", timeout=1)
    assert cell.timeout is not None and cell.timeout["context_restarted"] is False
    assert agent.run("1 + 1", language="js").text == "2"


@needs_node
def test_javascript_loop_after_an_await_is_killed_and_the_context_restarted(agent):
    agent.run("var survivor = 1", language="js")
    cell = agent.run("await null; while (true) {}", language="js", timeout=1)
    assert cell.timeout["context_restarted"] is True
    assert agent.run("typeof survivor", language="js").text == "'undefined'"


@needs_node
def test_javascript_process_exit_restarts_the_context(agent):
    cell = agent.run("process.exit(4)", language="js")
    assert cell.error["name"] == "KernelDied"
    assert agent.run("2 * 3", language="js").text == "6"


def test_javascript_without_node_is_unsupported(tmp_path):
    process = AgentProcess(tmp_path, node=None)
    try:
        assert process.ready["node"] is None
        failure = process.call("run_code", code="1", language="js")[-1]
        assert failure["type"] == "failure" and failure["kind"] == "unsupported"
        assert "node" in failure["message"]
    finally:
        process.close()


# --- bad requests -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line, request_id, kind, words", [
    (b'{"id": 5, "op": "fly"}', 5, "invalid", "unknown op"),
    (b'{"id": 6, "op": "run_code", "code": "1", "context": "nope"}', 6, "not_found", "Context nope not found"),
    (b'{"id": 7, "op": "run_code", "code": "1", "language": "cobol"}', 7, "unsupported", "cobol"),
    (b'{"id": 8, "op": "run_code", "code": "1", "language": "python", "context": "python"}', 8, "invalid",
     "not both"),
    (b'{"id": 9, "op": "run_code"', 9, "invalid", "not valid JSON"),
    (b'this is not json', -1, "invalid", "not valid JSON"),
    (b'[1, 2]', -1, "invalid", "JSON object"),
    (b'{"op": "ping"}', -1, "invalid", 'integer "id"'),
    (b'{"id": 10}', 10, "invalid", "op"),
    (b'{"id": 11, "op": "run_code", "code": "\\ud800"}', 11, "invalid", "surrogate"),
    (b'{"id": 12, "op": "run_code", "code": "\xff"}', 12, "invalid", "UTF-8"),
    (b'{"id": 13, "op": "run_code", "code": 5}', 13, "invalid", "code"),
    (b'{"id": 14, "op": "run_code", "code": "1", "timeout": -1}', 14, "invalid", "timeout"),
    (b'{"id": 15, "op": "files_read"}', 15, "invalid", "path"),
    (b'{"id": 16, "op": "command_wait", "pid": 999999999}', 16, "not_found", "999999999"),
    (b'{"id": 17, "op": "run_command", "cmd": "true", "cwd": "/no/such/dir"}', 17, "invalid", "/no/such/dir"),
    (b'[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[' * 2000, -1, "invalid", "JSON"),
])
def test_bad_requests_get_a_failure_and_the_agent_keeps_serving(agent, line, request_id, kind, words):
    agent.send_line(line)
    failure = agent.next_event()
    assert failure["type"] == "failure", failure
    assert failure["id"] == request_id
    assert failure["kind"] == kind
    assert words in failure["message"]
    assert agent.call("ping")[-1]["type"] == "reply"


def test_fields_of_the_wrong_type_never_break_the_agent(agent):
    # Only non-string values: a random string could be a real path or command line.
    fields = ("code", "language", "context", "envs", "timeout", "cwd", "cmd", "background", "stdin", "user", "pid",
              "data", "path", "depth", "old_path", "new_path")
    ops = ("run_code", "create_context", "list_contexts", "restart_context", "remove_context", "run_command",
           "command_wait", "command_kill", "command_send_stdin", "command_close_stdin", "command_list",
           "files_write", "files_read", "files_list", "files_exists", "files_info", "files_remove",
           "files_make_dir", "files_rename", "ping")
    for value in (5, -1, 2.5, True, None, [], {"a": 1}):
        for op in ops:
            request_id = agent.send(op, **{name: value for name in fields})
            final = agent.collect(request_id)[-1]
            assert final["type"] in ("failure", "reply"), final
            if final["type"] == "failure":
                assert final["kind"] in ("invalid", "not_found", "unsupported"), final
    assert agent.run("'still serving'").text == "'still serving'"


# --- commands -----------------------------------------------------------------------------------------------
def test_command_streams_output_and_reports_the_exit_code(agent):
    events = agent.call("run_command", cmd="echo hi; echo oops >&2; exit 3")
    assert events[0]["type"] == "start" and events[0]["pid"] > 0
    assert "".join(e["text"] for e in events if e["type"] == "stdout") == "hi\n"
    assert "".join(e["text"] for e in events if e["type"] == "stderr") == "oops\n"
    assert events[-1] == {"id": agent.next_id, "type": "end", "exit_code": 3, "error": "exit status 3",
                          "timed_out": False}
    assert agent.call("run_command", cmd="true")[-1]["exit_code"] == 0


def test_command_cwd_and_envs(agent):
    events = agent.call("run_command", cmd="pwd; echo $GREETING", envs={"GREETING": "hello"})
    assert "".join(e["text"] for e in events if e["type"] == "stdout") == "%s\nhello\n" % agent.home


def test_command_timeout_kills_its_process_group(agent):
    events = agent.call("run_command", cmd="sleep 600 & echo $!; wait", timeout=1)
    grandchild = int("".join(e["text"] for e in events if e["type"] == "stdout"))
    assert events[-1]["timed_out"] is True
    assert events[-1]["exit_code"] == 137 and events[-1]["error"] == "signal: killed"
    wait_until_gone([events[0]["pid"], grandchild])


def test_background_command_can_be_listed_and_killed(agent):
    events = agent.call("run_command", cmd="sleep 600", background=True, timeout=0)
    assert [e["type"] for e in events] == ["start", "reply"]
    pid = events[-1]["pid"]
    assert events[0]["pid"] == pid
    listed = agent.call("command_list")[-1]["processes"]
    assert [(p["pid"], p["running"]) for p in listed] == [(pid, True)]
    assert agent.call("command_kill", pid=pid)[-1]["killed"] is True
    end = agent.call("command_wait", pid=pid)[-1]
    assert end["type"] == "end" and end["exit_code"] == 137 and end["error"] == "signal: killed"
    assert agent.call("command_kill", pid=pid)[-1]["killed"] is False
    wait_until_gone([pid])


def test_background_output_is_buffered_until_waited_for(agent):
    pid = agent.call("run_command", cmd="echo one; echo two >&2; exit 4", background=True)[-1]["pid"]
    events = agent.call("command_wait", pid=pid)
    assert "".join(e["text"] for e in events if e["type"] == "stdout") == "one\n"
    assert "".join(e["text"] for e in events if e["type"] == "stderr") == "two\n"
    assert events[-1]["exit_code"] == 4
    assert agent.call("command_list")[-1]["processes"] == []


def test_background_command_timeout_applies_without_a_wait(agent):
    pid = agent.call("run_command", cmd="echo before; sleep 600", background=True, timeout=1)[-1]["pid"]
    wait_until_gone([pid])  # killed by its own timeout while nobody waited
    events = agent.call("command_wait", pid=pid)
    assert "".join(e["text"] for e in events if e["type"] == "stdout") == "before\n"
    assert events[-1]["timed_out"] is True and events[-1]["exit_code"] == 137


def test_command_wait_timeout_kills_the_command(agent):
    pid = agent.call("run_command", cmd="sleep 600", background=True, timeout=0)[-1]["pid"]
    end = agent.call("command_wait", pid=pid, timeout=0.5)[-1]
    assert end["timed_out"] is True and end["error"] == "signal: killed"
    wait_until_gone([pid])


def test_stdin_to_a_command(agent):
    pid = agent.call("run_command", cmd="cat; echo end", background=True, stdin=True)[-1]["pid"]
    assert agent.call("command_send_stdin", pid=pid, data="hello\n")[-1]["type"] == "reply"
    assert agent.call("command_send_stdin", pid=pid, data="wörld\n")[-1]["type"] == "reply"
    assert agent.call("command_close_stdin", pid=pid)[-1]["type"] == "reply"
    events = agent.call("command_wait", pid=pid)
    assert "".join(e["text"] for e in events if e["type"] == "stdout") == "hello\nwörld\nend\n"
    assert events[-1]["exit_code"] == 0


def test_stdin_to_a_foreground_command_while_it_streams(agent):
    request_id = agent.send("run_command", cmd="cat", stdin=True)
    start = agent.next_event()
    assert start["id"] == request_id and start["type"] == "start"
    send_id = agent.send("command_send_stdin", pid=start["pid"], data="streamed\n")
    assert agent.next_event() == {"id": send_id, "type": "reply"}
    chunk = agent.next_event()
    assert chunk["id"] == request_id and chunk["text"] == "streamed\n"
    close_id = agent.send("command_close_stdin", pid=start["pid"])
    assert agent.next_event() == {"id": close_id, "type": "reply"}
    assert agent.collect(request_id)[-1]["exit_code"] == 0


def test_stdin_is_refused_for_a_command_started_without_it(agent):
    pid = agent.call("run_command", cmd="sleep 600", background=True)[-1]["pid"]
    failure = agent.call("command_send_stdin", pid=pid, data="x")[-1]
    assert failure["type"] == "failure" and failure["kind"] == "invalid" and "stdin" in failure["message"]
    agent.call("command_kill", pid=pid)


def test_a_command_without_stdin_reads_end_of_file(agent):
    events = agent.call("run_command", cmd="cat; echo rc=$?")
    assert "".join(e["text"] for e in events if e["type"] == "stdout") == "rc=0\n"


def test_interrupt_kills_a_streaming_command(agent):
    request_id = agent.send("run_command", cmd="echo started; sleep 600")

    def interrupt_once_started(event):
        if event["type"] == "stdout":
            agent.send_line(json.dumps({"id": request_id, "op": "interrupt"}).encode())

    events = agent.collect(request_id, interrupt_once_started)
    assert events[-1]["error"] == "signal: killed" and events[-1]["timed_out"] is False


# --- files --------------------------------------------------------------------------------------------------
def test_files_round_trip_ten_megabytes_of_every_byte_value(agent):
    blob = bytes(range(256)) * (10 * 1024 * 1024 // 256) + b"\x00\xff\n\r"
    reply = agent.call("files_write", path="data/blob.bin", data=base64.b64encode(blob).decode())[-1]
    assert reply["type"] == "reply", reply
    assert reply["entry"]["path"] == str(agent.home / "data" / "blob.bin")
    assert reply["entry"]["size"] == len(blob) and reply["entry"]["type"] == "file"
    assert (agent.home / "data" / "blob.bin").read_bytes() == blob
    read = agent.call("files_read", path=str(agent.home / "data" / "blob.bin"))[-1]
    assert base64.b64decode(read["data"]) == blob


def test_files_list_info_exists_rename_remove_make_dir(agent):
    write = lambda path, text: agent.call("files_write", path=path, data=base64.b64encode(text).decode())[-1]
    write("tree/a.txt", b"a")
    write("tree/sub/b.txt", b"bb")
    os.symlink("a.txt", agent.home / "tree" / "link")
    shallow = agent.call("files_list", path="tree")[-1]["entries"]
    assert [(e["name"], e["type"]) for e in shallow] == [("a.txt", "file"), ("link", "symlink"), ("sub", "dir")]
    assert shallow[1]["symlink_target"] == "a.txt"
    deep = agent.call("files_list", path="tree", depth=2)[-1]["entries"]
    assert [e["path"] for e in deep] == [str(agent.home / p) for p in
                                         ("tree/a.txt", "tree/link", "tree/sub", "tree/sub/b.txt")]
    info = agent.call("files_info", path="tree/sub/b.txt")[-1]["entry"]
    assert info["size"] == 2 and info["permissions"].startswith("-rw") and info["modified_time"].endswith("Z")
    assert isinstance(info["mode"], int) and info["owner"] and info["group"]
    assert agent.call("files_exists", path="tree/a.txt")[-1]["exists"] is True
    assert agent.call("files_exists", path="tree/nope")[-1]["exists"] is False
    moved = agent.call("files_rename", old_path="tree/a.txt", new_path="elsewhere/c.txt")[-1]["entry"]
    assert moved["path"] == str(agent.home / "elsewhere" / "c.txt")
    assert (agent.home / "elsewhere" / "c.txt").read_bytes() == b"a"
    assert agent.call("files_make_dir", path="made/deep")[-1]["created"] is True
    assert agent.call("files_make_dir", path="made/deep")[-1]["created"] is False
    assert agent.call("files_remove", path="tree")[-1]["type"] == "reply"
    assert not (agent.home / "tree").exists()
    # As envd's Remove (os.RemoveAll): what does not exist is removed already.
    assert agent.call("files_remove", path="tree")[-1] == {"id": agent.next_id, "type": "reply"}


@pytest.mark.parametrize("op, fields, kind", [
    ("files_read", {"path": "missing.txt"}, "not_found"),
    ("files_read", {"path": "."}, "invalid"),
    ("files_read", {"path": "/dev/zero"}, "invalid"),
    ("files_write", {"path": "x.bin", "data": "not base64!"}, "invalid"),
    ("files_write", {"path": ".", "data": ""}, "invalid"),
    ("files_list", {"path": "missing"}, "not_found"),
    ("files_list", {"path": "file.txt"}, "invalid"),
    ("files_list", {"path": ".", "depth": 0}, "invalid"),
    ("files_info", {"path": "missing"}, "not_found"),
    ("files_remove", {"path": "file.txt/inner"}, "invalid"),  # (a missing path is removed already: a reply)
    ("files_rename", {"old_path": "missing", "new_path": "b"}, "not_found"),
    ("files_make_dir", {"path": "file.txt"}, "invalid"),
    ("files_write", {"path": "/proc/version", "data": "eA=="}, "io"),  # EACCES, or EIO for root
])
def test_file_errors_are_failures_with_a_kind_and_a_message(agent, op, fields, kind):
    (agent.home / "file.txt").write_text("x")
    failure = agent.call(op, **fields)[-1]
    assert failure["type"] == "failure", failure
    assert failure["kind"] == kind
    assert failure["message"]


def test_relative_paths_are_relative_to_home_and_normalised(agent):
    entry = agent.call("files_write", path="./a/../b.txt", data=base64.b64encode(b"b").decode())[-1]["entry"]
    assert entry["path"] == str(agent.home / "b.txt")


# --- the end ------------------------------------------------------------------------------------------------
def test_end_of_stdin_kills_everything_and_exits_zero(tmp_path):
    process = AgentProcess(tmp_path)
    pids = [int(process.run("import os\nos.getpid()").text)]
    if os.access(NODE, os.X_OK):
        pids.append(int(process.run("process.pid", language="js").text))
    pids.append(process.call("run_command", cmd="sleep 600", background=True, timeout=0)[-1]["pid"])
    events = process.call("run_command", cmd="sleep 600 & echo $!")  # leaves a child behind in its group
    pids.append(int("".join(e["text"] for e in events if e["type"] == "stdout")))
    pids.append(int(process.run("import subprocess\nsubprocess.Popen(['sleep', '600']).pid").text))
    assert not any(gone(pid) for pid in pids)
    process.proc.stdin.close()
    assert process.proc.wait(timeout=WAIT_SECONDS) == 0
    wait_until_gone(pids)


def test_end_of_stdin_while_a_cell_runs_still_exits_zero_and_kills_it(tmp_path):
    process = AgentProcess(tmp_path)
    pid = int(process.run("import os\nos.getpid()").text)
    request_id = process.send("run_code", code="print('spinning', flush=True)\nwhile True:\n    pass")
    first = process.next_event()
    assert first["id"] == request_id and first["type"] == "stdout"
    process.proc.stdin.close()
    assert process.proc.wait(timeout=WAIT_SECONDS) == 0
    wait_until_gone([pid])


# --- issue 13: the agent's side of the session boundary -------------------------------------------------------

def test_a_files_write_refused_half_way_leaves_the_old_file_or_none(tmp_path):
    """RLIMIT_FSIZE (the session's file size limit) refuses the write after 4 kB: nothing partial stays."""
    import resource

    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    agent = AgentProcess(tmp_path, preexec_fn=limit_file_size)
    try:
        big = base64.b64encode(b"z" * 10000).decode()
        refused = agent.call("files_write", path="new.bin", data=big)[-1]
        assert refused["type"] == "failure" and refused["kind"] == "io", refused
        assert not (agent.home / "new.bin").exists()
        assert agent.call("files_write", path="old.txt", data=base64.b64encode(b"old").decode())[-1]["type"] == "reply"
        assert agent.call("files_write", path="old.txt", data=big)[-1]["type"] == "failure"
        assert (agent.home / "old.txt").read_bytes() == b"old"
        assert sorted(p.name for p in agent.home.iterdir()) == ["old.txt"]  # no staging file left either
    finally:
        agent.close()


def test_files_info_takes_a_link_to_a_directory_as_that_directory(agent):
    (agent.home / "real").mkdir()
    os.symlink(str(agent.home / "real"), str(agent.home / "linked"))
    entry = agent.call("files_info", path="linked")[-1]["entry"]
    assert entry["type"] == "dir" and entry["symlink_target"] == str(agent.home / "real")


def test_files_info_describes_a_link_to_a_file_by_its_file_as_envd_does(agent):
    # E2B's test_file_symlink: get_info of `ln -s test.txt link` is a FILE whose symlink_target is the
    # absolute path of test.txt.
    (agent.home / "test.txt").write_text("Hello, World!")
    os.symlink("test.txt", str(agent.home / "link"))
    entry = agent.call("files_info", path="link")[-1]["entry"]
    assert (entry["type"], entry["size"], entry["symlink_target"]) == ("file", 13, str(agent.home / "test.txt"))
    assert entry["name"] == "link" and entry["path"].endswith("/link")
    os.symlink("nowhere", str(agent.home / "dangling"))
    entry = agent.call("files_info", path="dangling")[-1]["entry"]
    assert (entry["type"], entry["symlink_target"]) == ("symlink", "nowhere")


def test_messages_written_on_the_kernels_channel_reach_no_reply(agent):
    """Code that writes the kernel's own protocol on its control fd cannot set an id, a type, or another
    cell's results: the agent takes only typed fields of messages carrying the running cell's nonce."""
    forger = (
        "import os, stat\n"
        "lines = b'{\"id\": 1, \"type\": \"end_of_execution\"}\\n{\"type\": \"result\", \"is_main_result\": true}\\n'\n"
        "lines += b'{\"type\": \"done\", \"error\": null}\\n{\"type\": \"result\", \"text\": \"FORGED\"}\\n'\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
        "            os.write(fd, b'{\"unfinished')\n"
        "            os.write(fd, lines)\n"
        "    except OSError:\n"
        "        pass\n"
        "'written'")
    forging = agent.run(forger)
    assert [r["text"] for r in forging.results] == ["'written'"] and forging.error is None
    assert all(e["id"] == agent.next_id for e in forging.events)
    for code, text in (("21 * 2", "42"), ("'next'", "'next'")):
        cell = agent.run(code)
        assert [r["text"] for r in cell.results] == [text] and cell.error is None and cell.stdout == ""


def test_deep_json_results_pass_through_whole(agent):
    cell = agent.run("class Deep:\n"
                     "    def _repr_json_(self):\n"
                     "        value = 'bottom'\n"
                     "        for _ in range(40):\n"
                     "            value = {'down': value}\n"
                     "        return value\n"
                     "Deep()")
    value, depth = cell.results[0]["json"], 0
    while isinstance(value, dict):
        value, depth = value["down"], depth + 1
    assert (depth, value) == (40, "bottom")


def test_rich_results_are_capped_per_cell_with_a_marker(agent):
    cell = agent.run("class Big:\n"
                     "    def _repr_html_(self):\n"
                     "        return 'h' * (5 << 20)\n"
                     "    def __repr__(self):\n"
                     "        return 'Big()'\n"
                     "for _ in range(300):\n"
                     "    display(1)\n"
                     "Big()")
    assert len(cell.results) == 256  # the 300 display()s are cut at RESULTS_PER_CELL; Big() comes after them
    assert "[e2beval: a result was dropped: the cell sent more than 256" in cell.stderr
    cell = agent.run("Big()")
    assert cell.results[0]["text"] == "Big()" and "html" not in cell.results[0]
    assert "its html of 5242880 bytes was too large" in cell.stderr


@needs_node
def test_the_javascript_kernel_exposes_no_node_internals(agent):
    cell = agent.run("let internals; try { require('internal/repl/await'); internals = 'reachable' } "
                     "catch (error) { internals = error.code }\n"
                     "[process.execArgv.includes('--expose-internals'), internals, typeof _, typeof _error]",
                     language="js")
    # and the REPL the kernel uses for top-level await leaves no globals of its own (_, _error)
    assert cell.text == "[ false, 'MODULE_NOT_FOUND', 'undefined', 'undefined' ]", cell.events
    awaited = agent.run("let later = await Promise.resolve(20); later + 1", language="js")
    assert awaited.text == "21"
    assert agent.run("later * 2", language="js").text == "40"
    rejected = agent.run("await Promise.reject(new RangeError('no'))", language="js")
    assert rejected.error["name"] == "RangeError" and rejected.error["value"] == "no"
    broken = agent.run("await (", language="js")
    assert broken.error["name"] == "SyntaxError"


# --- output as E2B's kernels send it (CellOutput, the Python kernel's marks) --------------------------------
def test_python_output_written_together_is_one_event_and_keeps_its_place_among_results(agent):
    cell = agent.call("run_code", code="import os, sys\nprint(1)\nprint(2)\nos.system('echo from-a-process')\n"
                                       "print('e', file=sys.stderr)\ndisplay('shown')\nprint(3, end='')\n'last'")
    shown = [(event["type"], event.get("text")) for event in cell if event["type"] in ("stdout", "stderr", "result")]
    assert shown == [("stdout", "1\n2\nfrom-a-process\n"), ("stderr", "e\n"), ("result", "'shown'"),
                     ("stdout", "3"), ("result", "'last'")]


def test_a_cell_that_points_fd_1_at_a_file_gets_no_mark_in_it(agent):
    cell = agent.run("import os\nfd = os.open('out.txt', os.O_WRONLY | os.O_CREAT)\nsaved = os.dup(1)\nos.dup2(fd, 1)\n"
                     "os.system('echo into-the-file')\ndisplay('shown')\nos.dup2(saved, 1)\nprint('back')")
    assert (cell.stdout, cell.error) == ("back\n", None)
    assert (agent.home / "out.txt").read_bytes() == b"into-the-file\n"


def test_bash_output_is_one_event_per_line_and_javascript_one_per_write(agent, node_required):
    bash = agent.call("run_code", language="bash", code="echo a; echo b; printf c")
    assert [event["text"] for event in bash if event["type"] == "stdout"] == ["a\n", "b\n", "c"]
    js = agent.call("run_code", language="js", code="console.log(1); console.log(2); process.stdout.write('x\\n')")
    assert [event["text"] for event in js if event["type"] == "stdout"] == ["1\n", "2\n", "x\n"]


def test_marks_written_by_the_cell_itself_neither_leak_nor_hold_its_output(agent):
    # The Python kernel's marks order output among results (docs/session-protocol.md); a cell that writes one
    # itself (and floods after it) gets its output on, capped, without the mark, and the agent does not grow.
    fake = "\0\x01e2beval-mark:1.1\0"
    cell = agent.run("import sys\nsys.stdout.write('a' + %r + 'b\\n')\nsys.stdout.write(%r + 'x' * (3 << 20))\n"
                     "sys.stdout.flush()\n'done'" % (fake, fake))
    assert cell.stdout.startswith("ab\nxxx") and "e2beval-mark" not in cell.stdout
    assert "stdout truncated after 1 MiB" in cell.stdout and cell.text == "'done'"

"""Sessions on the E2B backend: `e2beval.Sandbox.create(backend="e2b")` against a real `e2beval serve`, over plain
HTTP (which the backend accepts for a private server) and over TLS with a CA made here. Each test drives one remote sandbox through the Python
module's E2B-compatible API — cells with state, errors and timeouts, a JavaScript context, commands with
streaming callbacks, background commands, stdin, files, the sandbox's lifetime — and the server's own list API
shows that nothing is left behind."""
import json
import threading
import urllib.request

import pytest

import e2beval
from e2beval.sandbox import (CommandExitException, FileType, InvalidArgumentException, NotFoundException, SandboxException,
                             TimeoutException)

from serve_process import ServeProcess
from support.clock import after_ms, before_ms, ms
from support.environment import environment
from support.waiting import Background, until
from fault_proxy import FaultProxy
from tls_test_ca import make_test_certificates


@pytest.fixture(scope="module", params=["http", "tls"])
def server(request, tmp_path_factory):
    """serve, reached directly over plain HTTP, or over TLS through a proxy whose certificate a CA made here
    signs (the backend trusts it through E2BEVAL_E2B_CA_FILE): every session call runs both ways."""
    served = ServeProcess("--max-sandboxes", "8", "--creation-rate", "100")
    variables = {**served.env, "E2BEVAL_E2B_CREATION_RATE": "100"}
    proxy = None
    if request.param == "tls":
        certificates = make_test_certificates(tmp_path_factory.mktemp("e2b-sessions-tls"))
        upstream = int(served.env["E2B_API_URL"].rsplit(":", 1)[1])
        proxy = FaultProxy(upstream, str(certificates / "proxy.pem"), str(certificates / "proxy.key")).start()
        url = f"https://127.0.0.1:{proxy.port}"
        variables.update({"E2B_API_URL": url, "E2B_SANDBOX_URL": url, "E2BEVAL_E2B_CA_FILE": str(certificates / "ca.pem")})
    with environment(variables):
        yield served
    try:
        assert remote_sandboxes(served) == [], "a session left a sandbox on the server"
        if proxy is not None:
            assert "POST /execute" in proxy.seen  # the cells went through TLS
    finally:
        if proxy is not None:
            proxy.stop()
        assert served.stop() == 0


def api(server, method, path):
    request = urllib.request.Request(server.env["E2B_API_URL"] + path, method=method,
                                     headers={"X-API-KEY": server.env["E2B_API_KEY"]})
    with urllib.request.urlopen(request, timeout=30) as answer:
        body = answer.read()
        return json.loads(body) if body else None


def remote_sandboxes(server):
    return [item["sandboxID"] for item in api(server, "GET", "/v2/sandboxes")]


@pytest.fixture
def sandbox(server):
    created = e2beval.Sandbox.create(backend="e2b", timeout=120)
    assert created.sandbox_id in remote_sandboxes(server)  # the session is the server's sandbox, not a local one
    yield created
    created.kill()
    assert created.sandbox_id not in remote_sandboxes(server)


def test_cells_keep_state_report_errors_and_time_out(sandbox, server):
    assert sandbox.run_code("x = 41").error is None
    assert sandbox.run_code("x + 1").text == "42"
    printed = []
    execution = sandbox.run_code("print('hi')\nx", on_stdout=lambda message: printed.append(message.line))
    assert printed == ["hi\n"] and execution.logs.stdout == ["hi\n"] and execution.text == "41"
    failed = sandbox.run_code("1 / 0")
    assert failed.error.name == "ZeroDivisionError" and "division by zero" in failed.error.value
    with pytest.raises(TimeoutException, match="timed out after 1"):
        sandbox.run_code("import time\ntime.sleep(30)", timeout=1)
    # Closing the stream made the server interrupt the cell: the context lives on with its state.
    assert sandbox.run_code("x", timeout=30).text == "41"


def test_a_javascript_context(sandbox):
    context = sandbox.create_code_context(language="javascript")
    assert context.language == "javascript"
    assert sandbox.run_code("var a = 2", context=context).error is None
    assert sandbox.run_code("a * 21", context=context).text == "42"
    assert context.id in [listed.id for listed in sandbox.list_code_contexts()]
    sandbox.remove_code_context(context)
    assert context.id not in [listed.id for listed in sandbox.list_code_contexts()]
    with pytest.raises(NotFoundException):
        sandbox.run_code("a", context=context)


def test_commands_stream_and_report_their_exit(sandbox):
    chunks = []
    result = sandbox.commands.run("echo one; sleep 0.2; echo two", on_stdout=chunks.append)
    assert result.stdout == "one\ntwo\n" and result.exit_code == 0
    assert chunks == ["one\n", "two\n"]  # as they came, not all at the end
    with pytest.raises(CommandExitException) as failed:
        sandbox.commands.run("echo oops >&2; exit 3", envs={"A": "1"})
    assert failed.value.exit_code == 3 and failed.value.stderr == "oops\n" and failed.value.error == "exit status 3"
    assert sandbox.commands.run("echo $GREETING", envs={"GREETING": "hello"}).stdout == "hello\n"
    with pytest.raises(TimeoutException):
        sandbox.commands.run("sleep 30", timeout=1)


def test_background_commands_wait_kill_and_stdin(sandbox):
    finishing = sandbox.commands.run("sleep 0.3; echo done", background=True)
    assert finishing.pid > 0
    assert finishing.wait().stdout == "done\n"  # buffered while nobody followed, then live

    sleeper = sandbox.commands.run("sleep 30", background=True)
    assert sleeper.pid in [process.pid for process in sandbox.commands.list()]
    assert sleeper.kill() is True
    with pytest.raises(CommandExitException) as killed:
        sleeper.wait()
    assert killed.value.exit_code == 137 and killed.value.error == "signal: killed"
    assert sleeper.pid not in [process.pid for process in sandbox.commands.list()]

    reader = sandbox.commands.run("read line; echo got:$line", background=True, stdin=True)
    reader.send_stdin("hello\n")
    assert reader.wait().stdout == "got:hello\n"
    cat = sandbox.commands.run("cat", background=True, stdin=True)
    cat.send_stdin(b"bytes")
    sandbox.commands.close_stdin(cat.pid)
    assert cat.wait().stdout == "bytes"
    without_stdin = sandbox.commands.run("sleep 5", background=True)
    with pytest.raises(InvalidArgumentException, match="without stdin"):
        without_stdin.send_stdin("x")
    without_stdin.kill()


def test_files(sandbox):
    written = sandbox.files.write("/home/user/notes/a.txt", "alpha")
    assert written.path == "/home/user/notes/a.txt" and written.name == "a.txt"
    sandbox.files.write("/home/user/notes/b.bin", b"\x00\xff")
    assert sandbox.files.read("/home/user/notes/a.txt") == "alpha"
    assert sandbox.files.read("/home/user/notes/b.bin", format="bytes") == bytearray(b"\x00\xff")
    listed = sandbox.files.list("/home/user/notes")
    assert [(entry.name, entry.type, entry.size) for entry in listed] == [("a.txt", FileType.FILE, 5), ("b.bin", FileType.FILE, 2)]
    assert sandbox.files.exists("/home/user/notes/a.txt") and not sandbox.files.exists("/home/user/nothing")
    assert sandbox.files.make_dir("/home/user/notes/sub") is True
    assert sandbox.files.make_dir("/home/user/notes/sub") is False
    assert [entry.name for entry in sandbox.files.list("/home/user/notes", depth=2)] == ["a.txt", "b.bin", "sub"]
    moved = sandbox.files.rename("/home/user/notes/a.txt", "/home/user/notes/sub/c.txt")
    assert moved.path == "/home/user/notes/sub/c.txt"
    sandbox.files.remove("/home/user/notes/b.bin")
    assert not sandbox.files.exists("/home/user/notes/b.bin")
    assert sandbox.run_code("open('/home/user/notes/sub/c.txt').read()").text == "alpha"  # the same sandbox
    with pytest.raises(NotFoundException):
        sandbox.files.read("/home/user/nothing")


def test_watch_dir_and_the_layout(sandbox):
    # The Python module's watch_dir is the session's watcher, which on this backend is envd's (served here):
    # a new file is CREATE, CHMOD, WRITE, each with its entry when asked for.
    sandbox.files.make_dir("/home/user/watched")
    handle = sandbox.files.watch_dir("/home/user/watched", include_entry=True)
    sandbox.files.write("/home/user/watched/new.txt", "four")
    events = handle.get_new_events()
    assert [(event.name, event.type.value) for event in events] == [("new.txt", "create"), ("new.txt", "chmod"),
                                                                    ("new.txt", "write")]
    assert events[-1].entry.path == "/home/user/watched/new.txt" and events[-1].entry.size == 4
    handle.stop()
    sandbox.files.remove("/home/user/no-such-file")  # no error, as envd's
    assert sandbox.commands.run('pwd; sudo echo "$FOO"').stdout == "/home/user\n\n"


def test_info_timeout_and_kill(server):
    sandbox = e2beval.Sandbox.create(backend="e2b", timeout=60, metadata={"purpose": "test"})
    info = sandbox.get_info()
    assert info.sandbox_id == sandbox.sandbox_id and info.metadata == {"purpose": "test"} and info.state == "running"
    remote_end = api(server, "GET", f"/sandboxes/{sandbox.sandbox_id}")["endAt"]
    asked = before_ms()
    sandbox.set_timeout(600)
    answered = after_ms()
    assert api(server, "GET", f"/sandboxes/{sandbox.sandbox_id}")["endAt"] > remote_end  # RFC 3339 strings sort
    # The new end is 600 s after the moment the server took the call: between the instants around it.
    assert asked + 600_000 <= ms(sandbox.get_info().end_at) <= answered + 600_000
    assert e2beval.Sandbox.connect(sandbox.sandbox_id).sandbox_id == sandbox.sandbox_id
    assert sandbox.kill() is True
    assert sandbox.sandbox_id not in remote_sandboxes(server)
    assert not sandbox.is_running()
    assert sandbox.kill() is False  # idempotent
    with pytest.raises(SandboxException, match="closed"):
        sandbox.run_code("1")


def test_a_sandbox_killed_mid_request_is_a_clear_error(server):
    sandbox = e2beval.Sandbox.create(backend="e2b", timeout=600)
    running = threading.Event()
    # The cell never ends on its own and its timeout is far off: only the kill can end the call, and it must say so
    # (a call the kill did not wake would run into its own timeout, a TimeoutException without "gone").
    call = Background(lambda: sandbox.run_code("import time\nprint('running', flush=True)\nwhile True:\n    time.sleep(1)",
                                               timeout=600, on_stdout=lambda message: running.set()),
                      "run_code in the sandbox being killed")
    until(running.is_set, "the cell's first output")  # the kill comes mid-request, not before the cell ran
    api(server, "DELETE", f"/sandboxes/{sandbox.sandbox_id}")
    with pytest.raises(SandboxException, match="E2B sandbox is gone"):
        call.result()
    assert not sandbox.is_running()
    with pytest.raises(SandboxException, match="closed"):
        sandbox.commands.run("true")
    sandbox.kill()


def test_limits_cannot_be_applied_to_a_remote_sandbox(server):
    with pytest.raises(InvalidArgumentException, match="cannot be applied to a remote E2B sandbox"):
        e2beval.Sandbox.create(backend="e2b", limits={"memory_mb": 64})

"""E2B's process calls through the official Python SDK against `e2beval serve`: background commands whose
streams stay open while other calls go through, list, send_stdin, kill, connect, several commands at once, and
what the SDK sees when a command fails or its sandbox goes. CloseStdin goes through the SDK's close_stdin
(it sends it from envdVersion 0.5.2 on; the server reports 0.5.7), and raw Connect JSON checks an unknown pid."""
import threading

import httpx
import pytest
from e2b import CommandExitException, NotFoundException, SandboxException, TimeoutException
from e2b_code_interpreter import Sandbox

WAIT_SECONDS = 60  # a bound so a broken server fails the test instead of hanging it; never a timing assertion


class Follow:
    """handle.wait() on a thread of its own, with its stdout as it arrives and what wait() returned or raised."""

    def __init__(self, handle):
        self.handle = handle
        self.chunks = []
        self.arrived = threading.Condition()
        self.result = self.error = None
        self.thread = threading.Thread(target=self._wait, daemon=True)
        self.thread.start()

    def _wait(self):
        try:
            self.result = self.handle.wait(on_stdout=self._on_stdout)
        except Exception as error:  # noqa: BLE001 - handed to the test as it is
            self.error = error
        with self.arrived:
            self.arrived.notify_all()

    def _on_stdout(self, text):
        with self.arrived:
            self.chunks.append(text)
            self.arrived.notify_all()

    def wait_for_output(self, text):
        with self.arrived:
            assert self.arrived.wait_for(lambda: text in "".join(self.chunks) or not self.thread.is_alive(),
                                         WAIT_SECONDS), "no %r within the bound" % text
        assert text in "".join(self.chunks), (self.chunks, self.error)

    def join(self):
        self.thread.join(WAIT_SECONDS)
        assert not self.thread.is_alive(), "the command's stream did not end"
        return self


RELEASED = "echo %s-started; while [ ! -e /home/user/%s ]; do sleep 0.05; done; echo %s-finished"


def test_background_output_arrives_while_run_code_and_files_write_run(sandbox):
    handle = sandbox.commands.run(RELEASED % ("server", "go", "server"), background=True)
    follow = Follow(handle)
    follow.wait_for_output("server-started\n")
    # The command's stream is open; these go through beside it (the write is what lets the command end).
    assert sandbox.run_code("6 * 7").text == "42"
    sandbox.files.write("/home/user/go", "")
    follow.join()
    assert follow.error is None
    assert follow.result.stdout == "server-started\nserver-finished\n"
    assert follow.result.exit_code == 0


def test_list_shows_a_background_command_and_kill_ends_it(sandbox):
    command = "sleep 100"
    handle = sandbox.commands.run(command, background=True, envs={"MARK": "listed"})
    listed = [p for p in sandbox.commands.list() if p.pid == handle.pid]
    assert len(listed) == 1
    assert (listed[0].cmd, listed[0].args, listed[0].envs) == ("/bin/bash", ["-l", "-c", command], {"MARK": "listed"})
    assert listed[0].cwd == "/home/user"
    assert sandbox.commands.kill(handle.pid) is True
    with pytest.raises(CommandExitException) as ended:
        handle.wait()
    assert ended.value.exit_code == 137
    assert ended.value.error == "signal: killed"
    assert handle.pid not in [p.pid for p in sandbox.commands.list()]
    assert sandbox.commands.kill(handle.pid) is False  # gone: not_found, which kill() answers with False


def test_send_stdin_reaches_cat(sandbox):
    handle = sandbox.commands.run("cat", background=True, stdin=True)
    follow = Follow(handle)
    sandbox.commands.send_stdin(handle.pid, "text\n")
    follow.wait_for_output("text\n")
    sandbox.commands.send_stdin(handle.pid, b"bytes\n")
    follow.wait_for_output("text\nbytes\n")
    assert handle.kill() is True
    follow.join()
    with pytest.raises(NotFoundException):
        sandbox.commands.send_stdin(handle.pid, "too late\n")


def test_connect_follows_a_running_command_to_its_end(sandbox):
    handle = sandbox.commands.run(RELEASED % ("first", "release", "first"), background=True)
    follow = Follow(handle)
    follow.wait_for_output("first-started\n")
    connected = sandbox.commands.connect(handle.pid)
    assert connected.pid == handle.pid
    later = Follow(connected)
    sandbox.files.write("/home/user/release", "")
    later.join()
    follow.join()
    assert later.error is None and follow.error is None
    assert later.result.stdout == "first-finished\n"  # from when it connected
    assert follow.result.stdout == "first-started\nfirst-finished\n"
    assert later.result.exit_code == follow.result.exit_code == 0
    with pytest.raises(NotFoundException):
        sandbox.commands.connect(handle.pid)  # ended: envd no longer knows it


def test_a_stream_that_goes_away_leaves_the_command_running(sandbox):
    handle = sandbox.commands.run(RELEASED % ("kept", "keep-going", "kept"), background=True)
    handle.disconnect()  # the SDK closes the Start stream; envd keeps the process
    assert handle.pid in [p.pid for p in sandbox.commands.list()]
    connected = sandbox.commands.connect(handle.pid)
    sandbox.files.write("/home/user/keep-going", "")
    result = connected.wait()
    assert "kept-finished\n" in result.stdout
    assert result.exit_code == 0


def test_two_background_commands_at_once(sandbox):
    first = Follow(sandbox.commands.run(RELEASED % ("a", "both", "a"), background=True))
    second = Follow(sandbox.commands.run(RELEASED % ("b", "both", "b"), background=True))
    first.wait_for_output("a-started\n")
    second.wait_for_output("b-started\n")
    assert {first.handle.pid, second.handle.pid} <= {p.pid for p in sandbox.commands.list()}
    sandbox.files.write("/home/user/both", "")
    assert first.join().result.stdout == "a-started\na-finished\n"
    assert second.join().result.stdout == "b-started\nb-finished\n"


def test_wait_raises_command_exit_exception_for_a_non_zero_exit(sandbox):
    handle = sandbox.commands.run("echo out; echo err >&2; exit 3", background=True)
    with pytest.raises(CommandExitException) as failed:
        handle.wait()
    assert (failed.value.exit_code, failed.value.stdout, failed.value.stderr) == (3, "out\n", "err\n")
    assert failed.value.error == "exit status 3"


def test_a_killed_sandbox_ends_the_stream_of_its_background_command(serve):
    sandbox = Sandbox.create(timeout=120)
    follow = Follow(sandbox.commands.run("echo alive; sleep 100", background=True))
    follow.wait_for_output("alive\n")
    Sandbox.kill(sandbox.sandbox_id)
    follow.join()
    assert follow.result is None
    # As on E2B (test_kill_sandbox_while_command_is_running): the connection breaks, the SDK asks /health and says
    # the sandbox is gone.
    assert isinstance(follow.error, TimeoutException), follow.error
    assert "sandbox was killed or reached its end of life" in str(follow.error), follow.error


def test_close_stdin(serve, sandbox):
    handle = sandbox.commands.run("cat; echo closed", background=True, stdin=True)
    sandbox.commands.send_stdin(handle.pid, "last words\n")
    sandbox.commands.close_stdin(handle.pid)
    result = handle.wait()  # cat saw EOF
    assert result.stdout == "last words\nclosed\n"


def test_close_stdin_over_raw_connect_json(serve, sandbox):
    handle = sandbox.commands.run("cat; echo closed", background=True, stdin=True)
    sandbox.commands.send_stdin(handle.pid, "last words\n")

    def close_stdin(pid):
        return httpx.post(serve.env["E2B_SANDBOX_URL"] + "/process.Process/CloseStdin",
                          headers={"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": "49983",
                                   "X-Access-Token": sandbox._envd_access_token},
                          json={"process": {"pid": pid}}, timeout=WAIT_SECONDS)

    closed = close_stdin(handle.pid)
    assert (closed.status_code, closed.json()) == (200, {})
    result = handle.wait()  # cat saw EOF
    assert result.stdout == "last words\nclosed\n"
    unknown = close_stdin(999999)
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"

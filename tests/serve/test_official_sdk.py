"""The official E2B Python SDKs (e2b-code-interpreter, e2b; versions pinned in scripts/setup.sh) run unchanged
against `e2beval serve`: code, commands, files and the control plane."""
import os
from datetime import timedelta

import pytest
from e2b import AuthenticationException, RateLimitException, SandboxNotFoundException, TimeoutException
from e2b_code_interpreter import Sandbox

from support.clock import after_ms, before_ms, ms


def test_run_code_keeps_state_and_reports_results_and_errors(sandbox):
    sandbox.run_code("x = 41\nprint('hi')")
    execution = sandbox.run_code("x + 1")
    assert execution.text == "42"
    assert sandbox.run_code("print('out')").logs.stdout == ["out\n"]
    error = sandbox.run_code("1 / 0").error
    assert (error.name, error.value) == ("ZeroDivisionError", "division by zero")
    assert sandbox.run_code("x").text == "41"  # the context survived its error


def test_display_results_and_string_text(sandbox):
    # display() gives a result of its own before the cell's value, each with is_main_result as E2B's server
    # sends it; a string's text has no quotes (E2B drops the pair around text/plain), other texts are reprs.
    execution = sandbox.run_code("display({'a': 1})\n'two'")
    assert [(result.text, result.is_main_result) for result in execution.results] == [("{'a': 1}", False),
                                                                                     ("two", True)]
    assert execution.text == "two"
    shown = sandbox.run_code("class T:\n    def _repr_html_(self): return '<b>t</b>'\ndisplay(T())").results
    assert len(shown) == 1 and shown[0].html == "<b>t</b>" and shown[0].formats() == ["text", "html"]
    assert sandbox.run_code("'it' + \"'s\"").text == "it's"


def test_explicit_context_and_javascript(sandbox):
    context = sandbox.create_code_context()
    sandbox.run_code("y = 'mine'", context=context)
    assert sandbox.run_code("y", context=context).text == "mine"
    assert sandbox.run_code("'y' in globals()").text == "False"  # the default context is another one
    assert context.id in [listed.id for listed in sandbox.list_code_contexts()]
    assert sandbox.run_code("[1, 2].map(n => n * 21)", language="javascript").text == "[ 21, 42 ]"


def test_bash_cells_and_contexts(sandbox):
    # E2B's code interpreter runs bash cells in one long-lived shell per context (its bash kernel): `cd` and
    # variables persist; envs hold for one cell; a non-zero exit status is the execution's error.
    sandbox.run_code("cd /tmp && answer=42", language="bash")
    assert sandbox.run_code("echo $PWD $answer", language="bash").logs.stdout == ["/tmp 42\n"]
    assert sandbox.run_code("echo $FOO", language="bash", envs={"FOO": "bar"}).logs.stdout == ["bar\n"]
    assert sandbox.run_code("echo ${FOO:-default}", language="bash").logs.stdout == ["default\n"]
    context = sandbox.create_code_context(language="bash", cwd="/tmp")
    assert (context.language, context.cwd) == ("bash", "/tmp")
    assert context.id in [listed.id for listed in sandbox.list_code_contexts()]
    error = sandbox.run_code("false", context=context).error
    assert (error.name, error.value) == ("ExitCode", "1")
    sandbox.restart_code_context(context)
    assert sandbox.run_code("echo ${answer:-fresh}", context=context).logs.stdout == ["fresh\n"]


def test_typescript_cells(sandbox):
    # The server's node is setup's Node 22 (scripts/env.sh puts it first on PATH), which strips types.
    sandbox.run_code("const answer: number = 42", language="typescript")
    assert sandbox.run_code("answer as number", language="ts").text == "42"
    assert sandbox.create_code_context(language="ts").language == "typescript"


def test_client_timeout_interrupts_the_cell_and_the_next_call_works(sandbox):
    # The official test_subsequent_execution_works_after_client_timeout: the SDK's timeout closes the
    # connection, the server interrupts the cell, the next call is served at once (not after the cell's end).
    with pytest.raises(TimeoutException):
        sandbox.run_code("import time\ntime.sleep(600)\nfinished = True", timeout=2)
    assert sandbox.run_code("1 + 1", timeout=60).text == "2"
    # Interrupted, not left to finish: the statement after the sleep never ran.
    assert sandbox.run_code("'finished' in globals()").text == "False"


def test_commands_run_streams_output(sandbox):
    seen = []
    result = sandbox.commands.run("echo one; echo two >&2; echo 'it''s'", on_stdout=seen.append)
    assert result.exit_code == 0
    assert result.stdout == "one\nits\n" and result.stderr == "two\n"
    assert "".join(seen) == "one\nits\n"


def test_files_write_and_read(sandbox):
    sandbox.files.write("/home/user/data.txt", "hello")
    assert sandbox.files.read("/home/user/data.txt") == "hello"
    assert sandbox.run_code("open('/home/user/data.txt').read()").text == "hello"
    # A path that climbs out stays inside the sandbox (its root is not the host's).
    sandbox.files.write("/home/user/../../tmp/inside.txt", "inside")
    assert sandbox.files.read("/tmp/inside.txt") == "inside"
    assert not os.path.exists("/tmp/inside.txt") or open("/tmp/inside.txt").read() != "inside"


def test_control_plane_list_info_timeout_connect_kill(serve):
    first = Sandbox.create(timeout=60, metadata={"suite": "serve"})
    try:
        listed = Sandbox.list().next_items()
        assert first.sandbox_id in [info.sandbox_id for info in listed]
        from e2b import SandboxQuery
        assert [info.sandbox_id for info in Sandbox.list(query=SandboxQuery(metadata={"suite": "serve"})).next_items()] == [first.sandbox_id]
        assert Sandbox.list(query=SandboxQuery(metadata={"suite": "other"})).next_items() == []
        info = first.get_info()
        assert info.metadata == {"suite": "serve"} and info.envd_version == "0.5.7"
        # The new end is 200 s after the moment the server took the call: between the instants around it.
        asked = before_ms()
        first.set_timeout(200)
        answered = after_ms()
        assert asked + 200_000 <= ms(first.get_info().end_at) <= answered + 200_000
        again = Sandbox.connect(first.sandbox_id)
        assert again.run_code("6 * 7").text == "42"
    finally:
        assert Sandbox.kill(first.sandbox_id) is True
    assert Sandbox.kill(first.sandbox_id) is False
    with pytest.raises(SandboxNotFoundException):
        Sandbox.get_info(first.sandbox_id)


def test_list_is_newest_first_and_takes_started_after_and_connect_only_extends(serve):
    # E2B's test_paginate_running_sandboxes, test_list_sandboxes_started_after and
    # test_resume_does_not_shorten_timeout_on_running_sandbox, as a test of ours.
    from e2b import SandboxQuery
    older = Sandbox.create(timeout=120, metadata={"suite": "order"})
    newer = Sandbox.create(timeout=120, metadata={"suite": "order"})
    try:
        query = SandboxQuery(metadata={"suite": "order"})
        paginator = Sandbox.list(query=query, limit=1)
        pages = [paginator.next_items(), paginator.next_items()]
        assert [[info.sandbox_id for info in page] for page in pages] == [[newer.sandbox_id], [older.sandbox_id]]
        assert not paginator.has_next
        ascending = Sandbox.list(query=query, order="asc").next_items()
        assert [info.sandbox_id for info in ascending] == [older.sandbox_id, newer.sandbox_id]
        started = newer.get_info().started_at
        since = Sandbox.list(query=SandboxQuery(metadata={"suite": "order"}, started_after=started)).next_items()
        assert newer.sandbox_id in [info.sandbox_id for info in since]
        later = Sandbox.list(query=SandboxQuery(metadata={"suite": "order"},
                                                started_after=started + timedelta(seconds=1))).next_items()
        assert later == []
        end_before = Sandbox.get_info(older.sandbox_id).end_at
        Sandbox.connect(older.sandbox_id, timeout=10)  # shorter than what is left: unchanged
        assert Sandbox.get_info(older.sandbox_id).end_at == end_before
        Sandbox.connect(older.sandbox_id, timeout=600)  # longer: extended
        assert Sandbox.get_info(older.sandbox_id).end_at > end_before
    finally:
        older.kill()
        newer.kill()


def test_wrong_key_is_refused(serve):
    with pytest.raises(AuthenticationException):
        Sandbox.create(api_key="e2b_" + "0" * 40)


def test_limit_of_live_sandboxes_is_429(serve):
    # The module's server runs at most 3 at once.
    kept = [Sandbox.create(timeout=60) for _ in range(3)]
    try:
        with pytest.raises(RateLimitException):
            Sandbox.create(timeout=60)
    finally:
        for created in kept:
            created.kill()
    Sandbox.create(timeout=60).kill()  # room again

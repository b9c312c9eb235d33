"""e2beval.Sandbox: the e2b_code_interpreter API over local sessions, on the real local backend."""

import inspect
import os

import pytest

import e2beval
from e2beval import Sandbox
from support.clock import after_ms, before_ms, ms
from support.waiting import until


@pytest.fixture
def sandbox():
    with Sandbox.create(timeout=120) as box:
        yield box


# --- the tutorial's assertion, with only the import changed ------------------------------------------

# The logic of the tutorial's validate_and_run_code_e2b.py (../shared/PROMPTFOO.md), written as users have
# it; the one change is the import line.
TUTORIAL_ASSERTION = '''
import re
from e2beval import Sandbox   # was: from e2b_code_interpreter import Sandbox

UNSAFE = [r"import socket", r"import requests", r"import urllib", r"os\\.system", r"subprocess", r"eval\\(",
          r"exec\\(", r"open\\('/etc", r"open\\('/proc", r"__import__\\("]

def extract_code(output, function_name):
    match = re.search(r"```(?:\\s*python)?\\s*\\r?\\n(.*?)```", output, re.DOTALL | re.IGNORECASE)
    if match:
        return match.group(1)
    match = re.search(rf"(def {function_name}\\(.*?\\):.*)", output, re.DOTALL)
    if match:
        return match.group(1)
    match = re.search(r"(def .*)", output, re.DOTALL)
    return match.group(1) if match else None

def get_assert(output, context):
    v = context["vars"]
    fn = v["function_name"]
    code = extract_code(output, fn)
    if not code:
        return {"pass": False, "score": 0, "reason": f"No Python function named {fn} found"}
    for pattern in UNSAFE:
        if re.search(pattern, code):
            return {"pass": False, "score": 0, "reason": "Unsafe pattern detected in generated code"}
    cases = v.get("test_cases") or [{"input": v.get("test_input"), "expected": v.get("expected_output")}]
    program = code + "\\n" + "\\n".join(f"print({fn}({c['input']}))" for c in cases)
    sandbox = Sandbox.create(allow_internet_access=False, timeout=60)
    try:
        execution = sandbox.run_code(program, language="python", timeout=5)
    finally:
        sandbox.kill()
    if execution.error:
        expected_error = v.get("expected_error")
        if expected_error and execution.error.name == expected_error:
            return {"pass": True, "score": 1, "reason": f"Expected error: {expected_error}"}
        return {"pass": False, "score": 0, "reason": f"Execution error: {execution.error.name}: {execution.error.value}"}
    got = "".join(execution.logs.stdout).strip().splitlines()
    expected = [str(c["expected"]).strip() for c in cases]
    if got == expected:
        return {"pass": True, "score": 1, "reason": "Correct output: " + ", ".join(got)}
    return {"pass": False, "score": 0, "reason": f"Expected {', '.join(expected)}, got {', '.join(got)}"}
'''

FACTORIAL = "```python\ndef factorial(n):\n    if n < 0:\n        raise ValueError('negative')\n    return 1 if n <= 1 else n * factorial(n - 1)\n```"
PALINDROME = "Here it is:\n```python\ndef is_palindrome(s):\n    return s == s[::-1]\n```"
LARGEST = "```python\ndef find_largest(xs):\n    return max(xs)\n```"
READ_FILE = "```python\ndef read_file(path):\n    return open('/etc/passwd').read()\n```"
REVERSE_WRONG = "```python\ndef reverse_string(s):\n    return s\n```"

TUTORIAL_CASES = [
    (FACTORIAL, {"function_name": "factorial", "test_cases": [{"input": "0", "expected": "1"}, {"input": "5", "expected": "120"},
                                                              {"input": "7", "expected": "5040"}]}, True, "Correct output: 1, 120, 5040"),
    (PALINDROME, {"function_name": "is_palindrome", "test_cases": [{"input": "'racecar'", "expected": "True"},
                                                                   {"input": "'promptfoo'", "expected": "False"},
                                                                   {"input": "''", "expected": "True"}]}, True, "Correct output"),
    (LARGEST, {"function_name": "find_largest", "test_cases": [{"input": "[1, 5, 3, 9, 2]", "expected": "9"},
                                                               {"input": "[-4, -9, -2]", "expected": "-2"},
                                                               {"input": "[42]", "expected": "42"}]}, True, "Correct output"),
    (READ_FILE, {"function_name": "read_file", "test_input": "'/etc/passwd'", "expected_output": "refused"}, False,
     "Unsafe pattern detected"),
    (FACTORIAL, {"function_name": "factorial", "test_input": "-3", "expected_output": "", "expected_error": "ValueError"},
     True, "Expected error: ValueError"),
    (REVERSE_WRONG, {"function_name": "reverse_string", "test_input": "'hello'", "expected_output": "olleh"}, False,
     "Expected olleh, got hello"),
]


@pytest.mark.parametrize("output,variables,passed,reason", TUTORIAL_CASES,
                         ids=["factorial", "palindrome", "largest", "read_file", "factorial-error", "reverse-wrong"])
def test_the_tutorials_assertion_runs_with_only_the_import_changed(output, variables, passed, reason):
    namespace = {}
    exec(compile(TUTORIAL_ASSERTION, "validate_and_run_code_e2b.py", "exec"), namespace)
    verdict = namespace["get_assert"](output, {"vars": variables})
    assert verdict["pass"] is passed, verdict
    assert verdict["reason"].startswith(reason), verdict


# --- the same names and parameters as the official SDK -----------------------------------------------


def official_sdk():
    try:
        import e2b_code_interpreter  # noqa: F401
    except ImportError:
        pytest.fail("the official e2b-code-interpreter SDK is a test dependency; run scripts/setup.sh")
    import e2b_code_interpreter
    return e2b_code_interpreter


def parameter_names(function):
    return [name for name, parameter in inspect.signature(function).parameters.items()
            if parameter.kind not in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL)]


def test_every_method_takes_the_official_sdks_parameters_in_the_same_order():
    sdk = official_sdk()
    from e2b.sandbox_sync.commands.command import Commands as OfficialCommands
    from e2b.sandbox_sync.filesystem.filesystem import Filesystem as OfficialFilesystem
    pairs = [(getattr(sdk.Sandbox, name), getattr(Sandbox, name)) for name in
             ("run_code", "create_code_context", "list_code_contexts", "restart_code_context", "remove_code_context",
              "is_running")]
    create = (sdk.Sandbox.create, Sandbox.create)
    pairs += [(getattr(OfficialCommands, name), getattr(e2beval.sandbox.Commands, name))
              for name in ("run", "kill", "list", "send_stdin", "close_stdin")]
    pairs += [(getattr(OfficialFilesystem, name), getattr(e2beval.sandbox.Filesystem, name))
              for name in ("read", "write", "list", "exists", "get_info", "remove", "rename", "make_dir")]
    # create: E2B's cloud-only options after the sixth (mcp, network, lifecycle, ...) go to **opts here.
    for official, ours in pairs + [create]:
        theirs = parameter_names(official)[:6] if (official, ours) == create else parameter_names(official)
        mine = parameter_names(ours)
        # Same leading parameters in the same order, so positional and keyword calls both carry over.
        common = [name for name in theirs if name not in ("request_timeout", "user", "gzip")]
        assert [name for name in mine if name in common] == common, (official.__qualname__, theirs, mine)
    for name in ("Execution", "ExecutionError", "Result", "Logs", "OutputMessage", "Context"):
        assert hasattr(e2beval.sandbox, name)
    official_fields = set(inspect.signature(sdk.Result.__init__).parameters) - {"self", "kwargs"}
    assert official_fields <= set(inspect.signature(e2beval.sandbox.Result.__init__).parameters)


# --- behaviour ---------------------------------------------------------------------------------------


def test_state_persists_and_the_last_expression_is_the_result(sandbox):
    first = sandbox.run_code("import math\nx = 20\nprint('set', x)")
    assert first.logs.stdout == ["set 20\n"]
    assert first.text is None and first.error is None
    second = sandbox.run_code("x * 2 + int(math.sqrt(4))")
    assert second.text == "42"
    assert second.results[0].is_main_result
    assert second.execution_count == 2
    assert "42" in second.to_json()


def test_rich_results_come_from_repr_methods(sandbox):
    execution = sandbox.run_code(
        "class Table:\n"
        "    def _repr_html_(self): return '<table><tr><td>1</td></tr></table>'\n"
        "    def __repr__(self): return 'Table()'\n"
        "Table()")
    result = execution.results[0]
    assert result.text == "Table()"
    assert result.html.startswith("<table>")
    assert set(result.formats()) >= {"text", "html"}


def test_an_exception_gives_name_value_traceback_and_the_context_goes_on(sandbox):
    sandbox.run_code("counter = 1")
    failed = sandbox.run_code("def f():\n    return {}['missing']\nf()")
    assert failed.error.name == "KeyError"
    assert failed.error.value == "'missing'"
    assert "line 2" in failed.error.traceback and "KeyError" in failed.error.traceback
    assert sandbox.run_code("counter + 1").text == "2"


def test_an_infinite_loop_times_out_and_the_next_cell_runs(sandbox):
    sandbox.run_code("kept = 'still here'")
    with pytest.raises(e2beval.sandbox.TimeoutException, match="timed out"):
        sandbox.run_code("while True:\n    pass", timeout=1)
    assert sandbox.run_code("kept").text == "'still here'"


def test_a_cell_that_ignores_the_interrupt_is_restarted_and_says_so(sandbox):
    sandbox.run_code("kept = 1")
    with pytest.raises(e2beval.sandbox.TimeoutException, match="restarted"):
        sandbox.run_code("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.1)",
                         timeout=1)
    after = sandbox.run_code("'kept' in globals()")
    assert after.text == "False"


def test_a_cell_killed_for_memory_names_the_limit_and_how_to_raise_it():
    """Issue 38, row 8: the memory cgroup's kill arrives as SIGKILL; the error says it was the session's memory
    limit (as a one-shot execution's memory_limit does), and how to raise it."""
    with Sandbox.create(timeout=120, limits={"memory_mb": 256}) as box:
        box.run_code("kept = 1")
        died = box.run_code("b = bytearray(512 * 1024 * 1024)")
        assert died.error is not None and died.error.name == "KernelDied", died
        assert "(signal: killed)" in died.error.value
        assert "it ran out of memory: the session's processes together reached its memory limit of 256 MiB" in died.error.value
        assert 'e2beval.Sandbox.create(limits={"memory_mb": 512})' in died.error.value
        assert "e2beval serve --memory-mb 512" in died.error.value
        # The context was restarted: it runs again, its state lost.
        assert box.run_code("'kept' in globals()").text == "False"
        # A kernel that dies of SIGKILL for another reason is not blamed on memory.
        killed = box.run_code("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
        assert killed.error.name == "KernelDied" and "(signal: killed)" in killed.error.value
        assert "memory" not in killed.error.value, killed.error.value


def test_streaming_callbacks_get_output_messages(sandbox):
    seen = []
    sandbox.run_code("import sys\nprint('a')\nprint('b', file=sys.stderr)", on_stdout=seen.append, on_stderr=seen.append)
    assert [message.line for message in seen if not message.error] == ["a\n"]
    assert [message.line for message in seen if message.error] == ["b\n"]
    assert all(isinstance(message.timestamp, int) and message.timestamp > 0 for message in seen)


def test_javascript_cells_keep_state(sandbox):
    sandbox.run_code("var x = 1; let y = 2; const greet = (n) => `hi ${n}`;", language="javascript")
    execution = sandbox.run_code("x + y", language="js")
    assert execution.text == "3"
    assert sandbox.run_code("console.log(greet('js'))", language="javascript").logs.stdout == ["hi js\n"]
    failed = sandbox.run_code("null.property", language="javascript")
    assert failed.error.name == "TypeError"


def test_contexts_are_separate_and_can_be_listed_restarted_and_removed(sandbox):
    context = sandbox.create_code_context(language="python")
    sandbox.run_code("value = 'in context'", context=context)
    sandbox.run_code("value = 'default'")
    assert sandbox.run_code("value", context=context).text == "'in context'"
    assert context.id in [c.id for c in sandbox.list_code_contexts()]
    sandbox.restart_code_context(context)
    assert sandbox.run_code("'value' in globals()", context=context).text == "False"
    sandbox.remove_code_context(context.id)
    with pytest.raises(e2beval.sandbox.NotFoundException, match=context.id):
        sandbox.run_code("1", context=context)


def test_commands_give_stdout_and_the_exit_code(sandbox):
    assert sandbox.commands.run("echo hello").stdout == "hello\n"
    with pytest.raises(e2beval.sandbox.CommandExitException) as raised:
        sandbox.commands.run("echo hi; exit 3")
    assert raised.value.stdout == "hi\n"
    assert raised.value.exit_code == 3


def test_background_commands_can_be_listed_fed_and_killed(sandbox):
    handle = sandbox.commands.run("read line; echo got $line", background=True, stdin=True)
    handle.send_stdin("ping\n")
    assert handle.wait().stdout == "got ping\n"
    sleeper = sandbox.commands.run("sleep 1000", background=True)
    assert sleeper.pid in [process.pid for process in sandbox.commands.list()]
    assert sandbox.commands.kill(sleeper.pid)
    assert sleeper.pid not in [process.pid for process in sandbox.commands.list()]


def test_files_round_trip_bytes_exactly(sandbox):
    blob = bytes(range(256)) * (10 * 1024 * 1024 // 256)
    info = sandbox.files.write("/home/user/data/blob.bin", blob)
    assert info.path == "/home/user/data/blob.bin"
    assert bytes(sandbox.files.read("data/blob.bin", format="bytes")) == blob
    assert sandbox.run_code("import os\nos.path.getsize('data/blob.bin')").text == str(len(blob))
    assert [entry.name for entry in sandbox.files.list("/home/user/data")] == ["blob.bin"]
    assert sandbox.files.make_dir("empty") is True
    sandbox.files.rename("data/blob.bin", "empty/moved.bin")
    assert sandbox.files.exists("empty/moved.bin") and not sandbox.files.exists("data/blob.bin")
    sandbox.files.remove("empty")
    assert not sandbox.files.exists("empty")


def test_paths_and_symlinks_cannot_reach_the_hosts_files(sandbox, tmp_path):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("HOST-SECRET-7f3a")
    # `..` climbs to the sandbox's own root: its /etc/passwd is generated, not the host's.
    passwd = sandbox.files.read("../../etc/passwd")
    assert "sandbox user" in passwd
    with open("/etc/passwd") as host:
        assert passwd != host.read()
    with pytest.raises(e2beval.sandbox.FileNotFoundException):
        sandbox.files.read(str(secret))
    sandbox.commands.run(f"ln -s {secret} link-out; ln -s /etc/shadow shadow-link")
    with pytest.raises(e2beval.sandbox.FileNotFoundException):
        sandbox.files.read("link-out")
    with pytest.raises(e2beval.sandbox.FileNotFoundException):
        sandbox.files.read("shadow-link")
    with pytest.raises(e2beval.sandbox.SandboxException):
        sandbox.files.write("/usr/evil", b"x")
    assert not os.path.exists("/usr/evil")


def test_two_sandboxes_see_neither_each_others_files_nor_processes():
    with Sandbox.create() as first, Sandbox.create() as second:
        first.files.write("mine.txt", "first's")
        first.commands.run("sleep 600", background=True)
        assert not second.files.exists("mine.txt")
        processes = second.commands.run("ps -e -o comm= 2>/dev/null || ls /proc | grep -c '^[0-9]'").stdout
        assert "sleep" not in processes
        assert first.sandbox_id != second.sandbox_id


def processes_in_pid_namespace(namespace):
    """Host pids whose pid namespace is `namespace` (what os.readlink gives for /proc/PID/ns/pid)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.readlink(f"/proc/{name}/ns/pid") == namespace:
                    found.append(name)
            except OSError:
                pass  # the process ended while we looked
    return found


def test_a_sandbox_past_its_timeout_is_gone_with_all_its_processes():
    box = Sandbox.create(timeout=2)
    init = box._session and __import__("json").loads(box._session.info())["host_pid"]
    namespace = os.readlink(f"/proc/{init}/ns/pid")
    box.commands.run("sleep 1000", background=True)
    until(lambda: not box.is_running(), "the end of a sandbox past its 2 s timeout")
    assert processes_in_pid_namespace(namespace) == []
    with pytest.raises(e2beval.sandbox.TimeoutException, match="timeout"):
        box.run_code("1")
    assert box.sandbox_id not in [info.sandbox_id for info in Sandbox.list()]


def test_set_timeout_get_info_and_class_level_kill():
    box = Sandbox.create(timeout=30, metadata={"suite": "api"})
    info = box.get_info()
    assert info.metadata == {"suite": "api"} and info.sandbox_id == box.sandbox_id
    asked = before_ms()
    box.set_timeout(120)
    answered = after_ms()
    # The new end is 120 s after the moment the sandbox took the call: between the instants around it.
    assert asked + 120_000 <= ms(box.get_info().end_at) <= answered + 120_000
    assert box.sandbox_id in [item.sandbox_id for item in Sandbox.list()]
    assert Sandbox.kill(box.sandbox_id) is True
    assert not box.is_running()


def test_bad_input_gets_clear_errors(sandbox):
    with pytest.raises(e2beval.sandbox.InvalidArgumentException, match="cobol"):
        sandbox.run_code("1", language="cobol")
    with pytest.raises(e2beval.sandbox.InvalidArgumentException, match="not both"):
        sandbox.run_code("1", language="python", context=sandbox.create_code_context())
    with pytest.raises(e2beval.sandbox.NotFoundException, match="no-such-context"):
        sandbox.run_code("1", context="no-such-context")
    with pytest.raises(e2beval.sandbox.InvalidArgumentException, match="UTF-8"):
        sandbox.run_code(b"print('\xff')")
    with pytest.raises(e2beval.sandbox.InvalidArgumentException, match="UTF-8"):
        sandbox.run_code("print('\udcff')")
    assert sandbox.run_code("'still works'").text == "'still works'"
    sandbox.kill()
    with pytest.raises(e2beval.sandbox.SandboxException, match="killed"):
        sandbox.run_code("1")
    with pytest.raises(e2beval.sandbox.NotFoundException):
        Sandbox.connect("local-doesnotexist")


def test_killing_the_owner_process_kills_its_sandboxes(tmp_path):
    import signal
    import subprocess
    import sys

    owner = subprocess.Popen(
        [sys.executable, "-c",
         "import json, sys, time\n"
         "from e2beval import Sandbox\n"
         "box = Sandbox.create(timeout=600)\n"
         "box.commands.run('sleep 1000', background=True)\n"
         "print(json.loads(box._session.info())['host_pid'], flush=True)\n"
         "time.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        init = int(owner.stdout.readline())
        namespace = os.readlink(f"/proc/{init}/ns/pid")
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    until(lambda: not processes_in_pid_namespace(namespace), "the end of the killed owner's sandbox processes",
          detail=lambda: processes_in_pid_namespace(namespace))
    # Its cgroups are empty now; the next e2beval process removes them when it creates its first cgroup.
    subprocess.run([sys.executable, "-c", "from e2beval import Sandbox\nSandbox.create().kill()"], check=True)
    leftovers = []
    for root, directories, _ in os.walk("/sys/fs/cgroup"):
        leftovers += [name for name in directories if name.startswith(f"e2beval-{owner.pid}-")]
        if root.count("/") > 6:
            directories[:] = []
    assert leftovers == []


def test_watch_dir_reports_created_written_changed_and_removed_files(sandbox):
    sandbox.files.make_dir("watched/sub")
    sandbox.files.write("watched/old.txt", "old")
    sandbox.files.write("watched/mode.txt", "mode")
    sandbox.files.write("watched/sub/deep.txt", "deep")
    flat = sandbox.files.watch_dir("watched")
    deep = sandbox.files.watch_dir("/home/user/watched", recursive=True, include_entry=True)
    assert flat.get_new_events() == []
    sandbox.commands.run("echo new > watched/new.txt; echo more >> watched/old.txt; rm watched/sub/deep.txt;"
                         " chmod 600 watched/mode.txt")
    # inotify's events, one per change, as envd reports them; not recursive: nothing of sub/deep.txt.
    kinds = [(event.name, event.type.value) for event in flat.get_new_events()]
    assert kinds == [("new.txt", "create"), ("new.txt", "write"), ("old.txt", "write"), ("mode.txt", "chmod")]
    events = deep.get_new_events()
    assert ("sub/deep.txt", "remove") in {(event.name, event.type.value) for event in events}
    # The entry is read when the event is handled, as envd does: the create's entry may see the file before or
    # after echo wrote it, the write's entry sees all four bytes.
    of_new = [event for event in events if event.name == "new.txt"]
    assert [event.type.value for event in of_new] == ["create", "write"]
    assert of_new[0].entry is not None and of_new[0].entry.size in (0, 4)
    assert of_new[1].entry is not None and of_new[1].entry.size == 4
    assert flat.get_new_events() == []
    flat.stop()
    with pytest.raises(e2beval.sandbox.SandboxException, match="stopped"):
        flat.get_new_events()
    with pytest.raises(e2beval.sandbox.InvalidArgumentException, match="not a directory"):
        sandbox.files.watch_dir("watched/old.txt")
    with pytest.raises(e2beval.sandbox.FileNotFoundException):
        sandbox.files.watch_dir("no-such-dir")


def test_watch_dir_reports_a_rename_and_every_one_of_a_burst_of_creations(sandbox):
    sandbox.files.make_dir("burst")
    sandbox.files.write("burst/before.txt", "x")
    handle = sandbox.files.watch_dir("burst")
    sandbox.files.rename("burst/before.txt", "burst/after.txt")
    sandbox.commands.run("for i in $(seq 1 100); do : > burst/f$i.txt; done")
    events = [(event.name, event.type.value) for event in handle.get_new_events()]
    # A rename is the old name's RENAME then the new name's CREATE, as envd reports it; none of the 100 is lost.
    assert events[:2] == [("before.txt", "rename"), ("after.txt", "create")]
    assert [name for name, kind in events[2:] if kind == "create"] == ["f%d.txt" % i for i in range(1, 101)]
    assert handle.dropped == 0 and not handle.ended
    sandbox.files.remove("burst")  # the watched directory itself: its last event, and the watch ends
    last = handle.get_new_events()[-1]
    assert (last.name, last.type.value) == (".", "remove") and handle.ended


def test_commands_run_marks_cut_output_on_the_stream_that_was_cut(sandbox):
    marker = "[e2beval: {} truncated after 1 MiB; the rest of it was dropped]\n"
    result = sandbox.commands.run("head -c 3000000 /dev/zero | tr '\\0' a; printf bbb >&2")
    assert result.stdout == "a" * (1 << 20) + "\n" + marker.format("stdout")  # the marker starts a line of its own
    assert result.stderr == "bbb"
    result = sandbox.commands.run("echo out; yes | head -c 2000000 >&2")
    assert result.stdout == "out\n"
    assert result.stderr == "y\n" * (1 << 19) + marker.format("stderr")


def test_a_refused_read_says_why_without_the_hint_meant_for_writes(sandbox):
    from e2beval.sandbox import SandboxException

    with pytest.raises(SandboxException) as refused_read:
        sandbox.files.read("/proc/1/environ")
    assert "EACCES" in str(refused_read.value) and "writable" not in str(refused_read.value)
    with pytest.raises(SandboxException) as refused_write:
        sandbox.files.write("/etc/e2beval-nope", "x")
    assert "only /home/user, /tmp and /dev/shm are writable" in str(refused_write.value)

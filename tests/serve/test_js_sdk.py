"""The official E2B JavaScript SDKs (@e2b/code-interpreter and e2b, pinned in the repository's package.json,
installed by scripts/setup.sh) run unchanged against `e2beval serve`: each program in tests/serve/js runs under
the Node 22 that setup installs, with the server's three E2B_* variables, and prints its results as one JSON
object; the assertions are here."""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "js"
NODE = REPO / "tools" / "promptfoo" / "node_modules" / ".bin" / "node"
SDK = REPO / "node_modules" / "@e2b" / "code-interpreter" / "package.json"
SETUP_HINT = "run scripts/setup.sh (it installs Node 22 in tools/promptfoo and the JS SDKs in node_modules)"

KILLED_MID_REQUEST = "The sandbox was killed while the request was in progress"


def run_js(serve, program: str) -> dict:
    assert NODE.exists(), f"no Node 22 at {NODE}: {SETUP_HINT}"
    assert SDK.exists(), f"@e2b/code-interpreter is not installed at {SDK.parent}: {SETUP_HINT}"
    env = {name: value for name, value in os.environ.items() if not name.startswith("E2B_")}
    env.update(serve.env)
    proc = subprocess.run([str(NODE), str(PROGRAMS / program)], cwd=PROGRAMS, env=env, capture_output=True,
                          text=True, timeout=120)
    log = f"node {program}: exit code {proc.returncode}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0 and lines, log
    results = json.loads(lines[-1])
    assert "uncaught" not in results, f"{program} threw {results['uncaught'].get('class')}: " \
                                      f"{results['uncaught'].get('message')}\n{log}"
    return results


def test_run_code_keeps_state_and_reports_output_and_errors(serve):
    results = run_js(serve, "run_code.mjs")
    assert results["stateText"] == "42"
    assert results["logs"] == {"stdout": ["out\n"], "stderr": ["err\n"]}
    assert "".join(results["streamed"]) == "0\n1\n2\n"
    assert results["error"]["name"] == "ZeroDivisionError" and results["error"]["value"] == "division by zero"
    assert "Traceback" in results["error"]["traceback"] and "1 / 0" in results["error"]["traceback"]
    assert results["afterError"] == "41"  # the context survived its error


def test_run_code_timeout_interrupts_the_cell_and_the_next_call_works(serve):
    results = run_js(serve, "timeout.mjs")
    assert results["timedOut"]["error"]["class"] == "TimeoutError", results
    assert "Execution timed out" in results["timedOut"]["error"]["message"]
    # Interrupted, not left to finish: the statement after the sleep never ran.
    assert results["next"] == "False"
    assert results["stillWorks"] == "2"


def test_javascript_contexts(serve):
    results = run_js(serve, "javascript.mjs")
    assert results["context"] == {"language": "javascript", "hasId": True}
    assert results["stateText"] == "42"
    assert results["language"] == {"stdout": ["from js\n"], "text": "[ 21, 42 ]"}
    assert results["error"] == {"name": "TypeError", "value": "bad input"}
    assert results["listed"] is True and results["listedAfterRemove"] is False
    assert results["bothGiven"]["error"]["class"] == "InvalidArgumentError"


def test_commands_stream_and_report_exit_codes(serve):
    results = run_js(serve, "commands.mjs")
    assert results["result"] == {"exitCode": 0, "stdout": "one\nthree\n", "stderr": "two\n"}
    assert results["streamed"] == {"stdout": "one\nthree\n", "stderr": "two\n"}
    assert results["envAndCwd"] == "hi from /tmp\n"
    non_zero = results["nonZero"]
    assert non_zero["isCommandExitError"] is True, non_zero
    assert (non_zero["exitCode"], non_zero["stdout"], non_zero["stderr"]) == (3, "partial\n", "broken\n")
    assert results["timeout"]["isTimeoutError"] is True, results["timeout"]
    assert results["afterTimeout"] == "alive\n"


def test_files_write_read_list(serve):
    results = run_js(serve, "files.mjs")
    assert results["read"] == "hello from js"
    assert results["bytes"] == list(b"hello")
    assert results["list"] == [{"name": "a.txt", "type": "file", "size": 1},
                               {"name": "b.bin", "type": "file", "size": 3},
                               {"name": "notes.txt", "type": "file", "size": 13}]
    assert results["exists"] == {"present": True, "absent": False}
    assert results["missing"]["error"]["class"] == "FileNotFoundError", results["missing"]
    assert results["seenByCode"] == "hello from js"  # E2B gives a string's text without its quotes


def test_control_plane_list_info_timeout_connect_kill(serve):
    results = run_js(serve, "control_plane.mjs")
    assert results["listedAll"] is True
    assert results["listedByMetadata"] == [True]
    assert results["listedOther"] == 0
    info = results["info"]
    assert info["state"] == "running" and info["envdVersion"] == "0.5.7" and info["metadata"]["suite"].startswith("js-")
    # Where the server put the sandbox's start and end: between the instants the program saw around each call
    # (the creation, setTimeout), plus the timeout asked. Instants, not a duration measured.
    created, extended = results["created"], results["extended"]
    assert created["asked"] <= created["startedAt"] <= created["answered"], created
    assert created["asked"] + 60_000 <= created["endAt"] <= created["answered"] + 60_000, created
    assert extended["asked"] + 200_000 <= extended["endAt"] <= extended["answered"] + 200_000, extended
    assert results["connected"] == {"sameId": True, "text": "42"}
    assert results["isRunning"] is True
    assert (results["kill"], results["killAgain"]) == (True, False)
    assert results["isRunningAfterKill"] is False
    assert results["infoAfterKill"]["error"]["class"] == "SandboxNotFoundError", results["infoAfterKill"]
    assert results["listedAfterKill"] is False


def test_sandbox_killed_mid_request(serve):
    results = run_js(serve, "killed_mid_request.mjs")
    assert results["kill"] is True
    # The SDK's own diagnosis: the connection broke and /health answers 502.
    assert results["runCode"]["error"]["class"] == "TimeoutError", results["runCode"]
    assert KILLED_MID_REQUEST in results["runCode"]["error"]["message"]
    assert results["isRunning"] is False
    assert results["after"]["error"]["class"] == "TimeoutError" and "was not found" in results["after"]["error"]["message"]
    assert results["command"]["error"]["class"] == "TimeoutError", results["command"]
    # A command's stream breaks with its sandbox, as on E2B: the SDK asks /health and says so.
    assert "killed or reached its end of life" in results["command"]["error"]["message"], results["command"]


# --- background commands, stdin, kill and watchDir ---------------------------------------------------------------

def test_background_command(serve):
    results = run_js(serve, "background.mjs")
    assert results["hasPid"] is True
    assert results["foreground"] == "during\n"
    assert results["listed"] is True
    assert results["waited"] == {"exitCode": 0, "stdout": "late\n"}


def test_command_stdin(serve):
    results = run_js(serve, "stdin.mjs")
    assert results["echoed"] == "got first\ngot second\n"
    assert results["killed"] is True


def test_command_kill(serve):
    results = run_js(serve, "kill.mjs")
    assert results["killed"] is True
    assert results["waited"]["class"] == "CommandExitError" and results["waited"]["exitCode"] != 0, results["waited"]
    assert results["killUnknown"] is False
    assert results["afterKill"] == "alive\n"


def test_watch_dir(serve):
    results = run_js(serve, "watch_dir.mjs")
    assert {"name": "new.txt", "type": "write"} in results["events"] or \
           {"name": "new.txt", "type": "create"} in results["events"], results["events"]


def test_layout_sudo_remove_and_watch_events_as_on_e2b(serve):
    results = run_js(serve, "layout.mjs")
    assert (results["pythonCwd"], results["jsCwd"], results["pwd"]) == ("/home/user",) * 3
    assert results["infoPath"] == "/home/user/test_file.txt"
    assert results["sudo"] == {"exitCode": 0, "stdout": "\n"}
    assert results["removeMissing"] == {}  # resolved (to undefined), not an error
    name = "test_nested_watch_dir/test_watch.txt"
    assert results["events"] == [{"name": name, "type": "create"}, {"name": name, "type": "chmod"},
                                 {"name": name, "type": "write"}]


def test_display_gives_results_besides_the_value_with_formats(serve):
    results = run_js(serve, "display.mjs")
    assert results["shown"]["results"] == [  # a dict is JSON too, as E2B's JSON formatter gives it
        {"text": "{'a': 1}", "isMainResult": False, "json": {"a": 1}, "formats": ["json"], "extra": {}},
        {"text": "5", "isMainResult": True, "formats": [], "extra": {}}]
    assert results["shown"]["text"] == "5"
    table, two = results["rich"]
    assert (table["isMainResult"], table["html"], table["json"]) == (False, "<b>t</b>", {"k": [1, 2]})
    assert table["formats"] == ["html", "json"]
    assert two["text"] == "two"  # as E2B's server gives text/plain: without the string's quotes


def test_bash_cells_keep_their_shell_state(serve):
    results = run_js(serve, "bash.mjs")
    assert results["persisted"] == ["/home/user/here yes\n"]
    assert (results["envs"], results["envsAfter"]) == (["bar\n"], ["default\n"])
    assert results["context"] == {"language": "bash", "cwd": "/home/user"}
    assert results["ownShell"] == ["/home/user none\n"]
    assert results["failed"] == {"stdout": ["partial\n"], "error": {"name": "ExitCode", "value": "2"},
                                 "stderrSaysWhy": True}


def test_typescript_cells(serve):
    results = run_js(serve, "typescript.mjs")
    assert results["product"] == {"text": "42", "error": None}
    assert results["contextLanguage"] == "typescript"


def test_cells_are_cut_and_run_as_e2b_kernels_do(serve):
    # promptfoo's E2B page assertion: `execution.logs.stdout.join("\n")` compared with "True\nFalse" (issue 33:
    # e2beval sent one message per print, so the join had a blank line, depending on timing).
    results = run_js(serve, "cells_as_e2b.mjs")
    assert results["promptfooJoin"] == "True\nFalse"
    assert results["pythonStdout"] == ["True\nFalse\n"]
    assert results["jsStdout"] == ["a\n", "b\n"]  # E2B's JavaScript kernel forwards each write
    assert results["esm"] == {"stdout": ["function\n"], "error": None}
    assert results["fromFile"] == {"text": "21", "error": None}
    assert results["kept"] == "22function"
    assert results["awaited"] == "function"
    assert ["python", "/home/user"] in results["contexts"] and ["javascript", "/home/user"] in results["contexts"]

# Bash code contexts (docs/session-protocol.md, "Code contexts"): one long-lived bash per context whose shell
# runs every cell, so `cd`, variables and functions persist as in E2B's bash kernel; a non-zero exit status is
# the cell's error; envs are set for one cell; interrupts and timeouts end the cell. First through the agent on
# the host (as test_session_agent.py drives it), then in a real session (e2beval.Sandbox).
import pytest

from e2beval import Sandbox
from e2beval.sandbox import InvalidArgumentException
from test_session_agent import AgentProcess


@pytest.fixture
def agent(tmp_path):
    process = AgentProcess(tmp_path)
    yield process
    process.close()


def test_ready_says_bash_and_bash_state_persists_across_cells(agent):
    assert agent.ready["bash"] is True
    (agent.home / "sub").mkdir()
    first = agent.run("cd sub\ngreeting='hi there'\nshout() { echo \"${1^^}\"; }\necho started", language="bash")
    assert (first.stdout, first.error, first.results, first.count) == ("started\n", None, [], 1)
    second = agent.run("pwd; echo \"$greeting\"; shout quiet", language="sh")
    assert second.stdout == "%s\nhi there\nQUIET\n" % (agent.home / "sub")
    assert second.count == 2
    listed = agent.call("list_contexts")[-1]["contexts"]
    assert {"id": "bash", "language": "bash", "cwd": str(agent.home)} in listed


def test_a_failing_last_command_is_the_cells_error_and_the_context_goes_on(agent):
    failed = agent.run("echo out; echo err >&2; false", language="bash")
    assert (failed.stdout, failed.stderr) == ("out\n", "err\n")
    assert (failed.error["name"], failed.error["value"]) == ("ExitCode", "1")
    syntax = agent.run("if then", language="bash")
    assert syntax.error["value"] == "2" and "syntax error" in syntax.stderr
    assert agent.run("echo still here", language="bash").stdout == "still here\n"


def test_envs_are_set_for_one_cell_and_restored(agent):
    agent.run("export KEPT=before", language="bash")
    cell = agent.run("echo \"$KEPT $ONLY_NOW\"; bash -c 'echo child sees $ONLY_NOW'", language="bash",
                     envs={"KEPT": "during", "ONLY_NOW": "yes"})
    assert cell.stdout == "during yes\nchild sees yes\n"
    after = agent.run("echo \"$KEPT ${ONLY_NOW-unset}\"", language="bash")
    assert after.stdout == "before unset\n"
    refused = agent.call("run_code", code="true", language="bash", envs={"not-a-name": "x"})[-1]
    assert refused["type"] == "failure" and refused["kind"] == "invalid" and "not-a-name" in refused["message"]


def test_created_bash_context_starts_in_its_cwd_and_is_separate(agent):
    (agent.home / "work").mkdir()
    context = agent.call("create_context", language="bash", cwd="work")[-1]["context"]
    assert context["language"] == "bash" and context["cwd"] == str(agent.home / "work")
    agent.run("mine=1", context=context["id"])
    assert agent.run("echo \"$PWD ${mine-none}\"", context=context["id"]).stdout == "%s 1\n" % (agent.home / "work")
    assert agent.run("echo ${mine-none}", language="bash").stdout == "none\n"


def test_timeout_ends_a_waiting_cell_by_restarting_the_context(agent):
    agent.run("kept=1", language="bash")
    timed = agent.run("sleep 30; echo never", language="bash", timeout=0.5)
    assert timed.timeout == {"type": "timeout", "seconds": 0.5, "context_restarted": True, "id": timed.events[0]["id"]}
    assert "never" not in timed.stdout
    assert agent.run("echo ${kept-lost}", language="bash").stdout == "lost\n"


def test_exit_in_a_cell_restarts_the_context(agent):
    ended = agent.run("sleep 60 &\nexit 3", language="bash")
    assert ended.error["name"] == "KernelDied" and "exit code 3" in ended.error["value"]
    assert agent.run("echo back", language="bash").stdout == "back\n"


def test_nul_in_bash_code_is_refused(agent):
    refused = agent.call("run_code", code="echo a\0b", language="bash")[-1]
    assert refused["type"] == "failure" and refused["kind"] == "invalid" and "NUL" in refused["message"]


def test_unknown_language_names_bash_among_the_supported(agent):
    refused = agent.call("run_code", code="1", language="cobol")[-1]
    assert refused["kind"] == "unsupported" and "\"bash\"" in refused["message"]


def test_bash_cells_in_a_real_session():
    with Sandbox.create(timeout=120) as sandbox:
        sandbox.run_code("mkdir -p /home/user/d && cd /home/user/d && n=7", language="bash")
        execution = sandbox.run_code("echo \"$PWD $n\"; ls /proc | grep -c '^[0-9]'", language="bash")
        lines = execution.logs.stdout[0].splitlines() if len(execution.logs.stdout) == 1 else \
            "".join(execution.logs.stdout).splitlines()
        assert lines[0] == "/home/user/d 7"
        assert int(lines[1]) <= 4  # its own pid namespace: its init, bash, ls, grep; nothing of the agent's
        context = sandbox.create_code_context(language="bash")
        assert context.language == "bash"
        error = sandbox.run_code("exit_with() { return $1; }; exit_with 5", context=context).error
        assert (error.name, error.value) == ("ExitCode", "5")
        with pytest.raises(InvalidArgumentException):
            sandbox.run_code("echo", language="bash", envs={"a b": "1"})

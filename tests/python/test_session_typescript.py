# TypeScript cells (docs/session-protocol.md, "Code contexts"): JavaScript cells whose types node strips first
# (module.stripTypeScriptTypes, node 22.13+). Setup installs Node 22 in tools/promptfoo; the system's node 20
# has no type stripping, and a TypeScript cell there gets a failure that says what is needed.
import subprocess
from pathlib import Path

from test_session_agent import AgentProcess

NODE_22 = Path(__file__).resolve().parents[2] / "tools" / "promptfoo" / "node_modules" / ".bin" / "node"
NODE_20 = "/usr/bin/node"


def node_version(node):
    return subprocess.run([str(node), "--version"], capture_output=True, text=True, check=True).stdout.strip()


def test_typescript_cells_keep_state_and_report_type_free_errors(tmp_path):
    assert NODE_22.exists(), "no Node 22 at %s: run scripts/setup.sh" % NODE_22
    agent = AgentProcess(tmp_path, node=str(NODE_22))
    try:
        first = agent.run("interface Point { x: number; y: number }\n"
                          "const p: Point = { x: 2, y: 21 };\nfunction area(q: Point): number { return q.x * q.y }",
                          language="typescript")
        assert (first.error, first.stderr) == (None, "")  # no experimental warning reaches the cell
        assert agent.run("area(p) as number", language="ts").text == "42"
        thrown = agent.run("const bad: string = 'x';\nthrow new TypeError(bad)", language="ts")
        assert (thrown.error["name"], thrown.error["value"]) == ("TypeError", "x")
        assert "<cell 3>:2" in thrown.error["traceback"]  # stripping keeps the lines
        context = agent.call("create_context", language="ts")[-1]["context"]
        assert context["language"] == "typescript"
        assert agent.run("typeof p", context=context["id"]).text == "'undefined'"  # a context of its own
        assert agent.run("let n: number = 1; n", language="javascript").error["name"] == "SyntaxError"
    finally:
        agent.close()


def test_typescript_on_a_node_without_type_stripping_says_what_it_needs(tmp_path):
    version = node_version(NODE_20)
    assert version.startswith("v20."), "this test needs the system's node 20 at %s, found %s" % (NODE_20, version)
    agent = AgentProcess(tmp_path, node=NODE_20)
    try:
        refused = agent.call("run_code", code="let n: number = 1", language="typescript")[-1]
        assert refused["type"] == "failure" and refused["kind"] == "unsupported"
        assert "node 22.13 or later" in refused["message"] and version in refused["message"]
        assert agent.run("1 + 1", language="javascript").text == "2"  # JavaScript itself still runs
    finally:
        agent.close()

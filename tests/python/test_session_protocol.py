# The session protocol's one table (src/local/session_protocol.json) against its three users: the agent serves
# exactly its requests and reads only its fields, the C++ constants the build generates are its names, and the
# Python Sandbox sends only its names. tests/python/test_architecture.py checks that nobody types a name itself.
import json
import re
import subprocess
import sys
from pathlib import Path

from test_session_agent import AGENT_SOURCES, agent_program

REPO = Path(__file__).resolve().parents[2]
TABLE = json.loads((AGENT_SOURCES / "session_protocol.json").read_text())
REQUESTS = TABLE["requests"]

# Loads the agent's modules as launch.py does, builds its Agent (no request is served) and prints what it serves.
SERVED = """
import json, runpy, sys
program = runpy.run_path(sys.argv[1], run_name="not_main")
sys.meta_path.insert(0, program["AgentModules"](program["AGENT_FILES"]))
from session_agent.agent import Agent
print(json.dumps(sorted(Agent(sys.argv[2]).handlers)))
"""


def test_the_agent_serves_exactly_the_requests_of_the_table(tmp_path):
    program = tmp_path / "agent.py"
    program.write_text(agent_program())
    found = subprocess.run([sys.executable, "-I", "-B", "-c", SERVED, str(program), str(tmp_path)],
                           stdin=subprocess.PIPE, capture_output=True, text=True, timeout=60,
                           env={"PATH": "/usr/bin:/bin"})
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == sorted(REQUESTS)


def test_the_agent_reads_the_fields_the_table_lists_and_no_other():
    package = AGENT_SOURCES / "session_agent"
    text = "\n".join(path.read_text() for path in package.glob("*.py"))
    read = set(re.findall(r'(?:\bfield\(request, |request\.get\()"(\w+)"', text))
    read |= set(re.findall(r'_field\(request(?:, self\.agent\.home)?, "(\w+)"', text))
    # The field helpers' defaults: path_field reads "path", directory_field "cwd", timeout_field "timeout".
    for helper, default in (("path_field", "path"), ("directory_field", "cwd"), ("timeout_field", "timeout"),
                            ("envs_field", "envs")):
        assert re.search(r"def %s\(request[^)]*\b(?:name=\"%s\")?" % (helper, default), text)
        read.add(default)
    listed = {name for request in REQUESTS.values() for name in request["fields"]} | {"id", "op"}  # in every request
    assert read == listed, "fields the agent reads but the table lacks: %s; listed but never read: %s" % (
        sorted(read - listed), sorted(listed - read))


def test_the_cpp_constants_are_the_names_of_the_table():
    header = REPO / "build" / "cpp" / "generated" / "core" / "session_protocol.hpp"
    assert header.is_file(), "%s is missing: build with scripts/setup.sh --tests" % header
    text = header.read_text()
    ops = text.split("namespace e2beval::session_op {")[1].split("}  // namespace e2beval::session_op")[0]
    names = re.findall(r'inline constexpr char (\w+)\[\] = "(\w+)";', ops)
    assert all(constant == value for constant, value in names)
    assert sorted(name for name, _ in names) == sorted(REQUESTS)
    kinds = text.split("namespace e2beval::session_failure {")[1]
    assert re.findall(r'inline constexpr char (\w+)\[\]', kinds) == TABLE["failure_kinds"]


def test_the_python_sandbox_sends_only_names_of_the_table():
    from e2beval import session_protocol

    assert session_protocol.TABLE == TABLE, "the installed table is stale: rebuild with scripts/setup.sh"
    assert sorted(vars(session_protocol.op)) == sorted(REQUESTS)
    sent = set(re.findall(r"\bop\.(\w+)", (REPO / "python" / "e2beval" / "sandbox.py").read_text()))
    assert sent and sent <= set(REQUESTS), "not in the table: %s" % sorted(sent - set(REQUESTS))

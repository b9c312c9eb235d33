"""An interpreter that lives under the host's /tmp (a clone or virtualenv there) is mounted outside the
sandbox's /tmp, which is the workspace: nothing of the host's tree shows in it, one-shot or in a session,
and the interpreter still runs."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# Run in a child process: E2BEVAL_NODE is read when the sandbox discovers Node, and this suite's other
# tests must keep theirs.
PROBE = r"""
import json, sys
import e2beval
from e2beval import Sandbox

report = {}
one_shot = e2beval.execute(
    "const fs = require('fs'); console.log(JSON.stringify({exec: process.execPath, tmp: fs.readdirSync('/tmp')}))",
    language="javascript")
report["one_shot"] = one_shot
python = e2beval.execute("import os, json; print(json.dumps(os.listdir('/tmp')))")
report["python_tmp"] = python
with Sandbox.create(timeout=60) as sandbox:
    report["home"] = sorted(entry.name for entry in sandbox.files.list("/home/user"))
    report["tmp"] = sandbox.commands.run("ls -A /tmp").stdout
    cell = sandbox.run_code("console.log(process.execPath)", language="javascript")
    report["session_js"] = {"stdout": cell.logs.stdout, "error": cell.error.value if cell.error else None}
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def node_under_tmp():
    node = shutil.which("node")
    assert node, "node is not on PATH; scripts/setup.sh installs it (tools/promptfoo) and scripts/env.sh puts it there"
    clone = Path(tempfile.mkdtemp(prefix="e2beval-newcomer-", dir="/tmp"))
    clone.chmod(0o755)  # as a clone is; mkdtemp's 0700 would keep the sandbox's user out
    (clone / "bin").mkdir()
    # A copy, not a link: the sandbox resolves links to the real binary, which would not be under /tmp.
    shutil.copy2(os.path.realpath(node), clone / "bin" / "node")
    yield clone
    shutil.rmtree(clone)


def test_an_interpreter_under_the_hosts_tmp_runs_and_nothing_of_the_host_shows_in_the_workspace(node_under_tmp):
    env = dict(os.environ, E2BEVAL_NODE=str(node_under_tmp / "bin" / "node"))
    probe = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=180)
    assert probe.returncode == 0, probe.stderr
    report = json.loads(probe.stdout.strip().splitlines()[-1])
    host_name = node_under_tmp.name

    one_shot = report["one_shot"]
    assert one_shot["outcome"] == "ok", one_shot
    seen = json.loads(one_shot["stdout"])
    assert seen["tmp"] == ["main.js"], seen
    assert seen["exec"] == f"/run/e2beval/host-tmp/{host_name}/bin/node"
    assert json.loads(report["python_tmp"]["stdout"]) == ["main.py"]

    assert host_name not in report["home"], report["home"]
    assert host_name not in report["tmp"], report["tmp"]
    assert report["session_js"]["error"] is None, report["session_js"]
    assert report["session_js"]["stdout"] == [f"/run/e2beval/host-tmp/{host_name}/bin/node\n"]


def test_the_sandboxes_python_is_python_on_path_also_from_a_virtualenv_under_the_hosts_tmp(tmp_path):
    # A checkout (and its .venv) under /tmp: the sandbox sees that Python under /run/e2beval/host-tmp, and
    # `python` in a command the code starts must still be it (SWE runs `python -m pytest` so), not a host path
    # that does not exist inside.
    assert str(tmp_path).startswith("/tmp/")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    program = tmp_path / "program.py"
    program.write_text("import subprocess, sys\n"
                       "print(subprocess.run(['python', '-c', 'import sys; print(sys.prefix)'], capture_output=True, text=True).stdout, end='')\n"
                       "print(sys.prefix)\n")
    done = subprocess.run(["e2beval", "run", "--python", str(venv / "bin" / "python"), str(program)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    inside = "/run/e2beval/host-tmp" + str(venv)[len("/tmp"):]
    base = os.path.realpath(sys.base_prefix)
    assert done.stdout.splitlines() == [inside, "/run/e2beval/host-tmp" + base[4:] if base.startswith("/tmp/") else base]
    # The default environment of a session too: `python` in a command is this module's Python and virtualenv.
    from e2beval import Sandbox
    prefix = os.path.realpath(sys.prefix)
    with Sandbox.create(timeout=60) as sandbox:
        found = sandbox.commands.run("python -c 'import sys; print(sys.prefix)'").stdout.strip()
        assert found == ("/run/e2beval/host-tmp" + prefix[4:] if prefix.startswith("/tmp/") else prefix)

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

# why: the interpreter's files are bound read-only into the session: files.write, a command's `>>` and a cell's open(..., "a") on the host's os.py and on e2beval's own package files all fail, and the host files keep their hashes
import os

import e2beval
from e2beval.sandbox import CommandExitException, SandboxException


def inside(host_path):
    """Where the sandbox shows a bound host path: the same path, except that one under the host's /tmp (a fresh
    clone's .venv) is bound at /run/e2beval/host-tmp, the sandbox's /tmp being its own workspace."""
    return "/run/e2beval/host-tmp" + host_path[len("/tmp"):] if host_path.startswith("/tmp/") else host_path


def attack(sandbox, host):
    victims = [os.__file__, e2beval.__file__]
    before = {path: host.sha256(path) for path in victims}
    for path in map(inside, victims):
        try:
            sandbox.files.write(path, "import os; os.system('id')\n")
            raise AssertionError(f"files.write to {path} succeeded")
        except SandboxException:
            pass
        try:
            sandbox.commands.run(f"echo 'raise SystemExit' >> {path}")
            raise AssertionError(f"a command appended to {path}")
        except CommandExitException:
            pass
        execution = sandbox.run_code(f"open({path!r}, 'a').write('x')")
        assert execution.error is not None, f"a cell appended to {path}"
    assert {path: host.sha256(path) for path in victims} == before

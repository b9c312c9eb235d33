# why: files.remove of system files is refused (read-only root), and of the host's canary path finds nothing (the session's /tmp is its own; a missing path is no error, as envd's Remove): every host file is still there, unchanged
import os
import shutil
import sys

from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    victims = ["/etc/passwd", shutil.which("env") or "/usr/bin/env", os.path.realpath(sys.executable), os.__file__]
    before = {path: host.sha256(path) for path in victims}
    for path in victims + ["/proc/1/root/etc/passwd", "../../usr/bin", "/etc"]:
        try:
            sandbox.files.remove(path)
        except SandboxException:
            continue
        raise AssertionError(f"files.remove({path!r}) succeeded")
    # Not in the session: nothing to remove (no error, as envd's os.RemoveAll), and the host's file stays.
    assert not sandbox.files.exists(host.canary_path)
    sandbox.files.remove(host.canary_path)
    try:
        sandbox.files.remove("/proc/1/root" + host.canary_path)
    except SandboxException:
        pass  # the init's root is closed to the agent (EACCES); either way nothing of the host's is reached
    assert {path: host.sha256(path) for path in victims} == before
    assert open(host.canary_path).read() == host.canary_text

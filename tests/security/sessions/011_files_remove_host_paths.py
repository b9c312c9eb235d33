# why: files.remove of system files and of the host's canary path is refused (read-only root) or finds nothing (the session's /tmp is its workspace): every host file is still there, unchanged
import os
import shutil
import sys

from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    victims = ["/etc/passwd", shutil.which("env") or "/usr/bin/env", os.path.realpath(sys.executable), os.__file__]
    before = {path: host.sha256(path) for path in victims}
    for path in victims + [host.canary_path, "/proc/1/root/etc/passwd", "../../usr/bin", "/etc"]:
        try:
            sandbox.files.remove(path)
        except SandboxException:
            continue
        raise AssertionError(f"files.remove({path!r}) succeeded")
    assert {path: host.sha256(path) for path in victims} == before
    assert open(host.canary_path).read() == host.canary_text

# why: files.read resolves paths in the session's own root (its /tmp is its workspace): the host's /tmp canary, named directly, through `..` and through /proc/*/root, is not there
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    paths = [host.canary_path, "../../.." + host.canary_path, "/home/user/../.." + host.canary_path,
             "/proc/1/root" + host.canary_path, "/proc/self/root" + host.canary_path,
             f"/proc/{host.runner_pid}/root" + host.canary_path]
    for path in paths:
        try:
            text = sandbox.files.read(path)
        except SandboxException:
            continue
        assert not host.leaked(text), f"files.read({path!r}) returned the host's canary"
    assert not sandbox.files.exists(host.canary_path)

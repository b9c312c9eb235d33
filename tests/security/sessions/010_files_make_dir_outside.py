# why: files.make_dir outside the workspace (/etc, /usr via `..`, /root, /work, the owner's /proc root) is refused by the read-only root; no directory appears on the host
import os

from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    t = host.token
    for path in [f"/etc/{t}", f"../../usr/{t}", f"/root/{t}", f"/work/{t}", f"/proc/1/root/{t}",
                 f"/proc/{host.runner_pid}/root/etc/{t}", f"/{t}"]:
        try:
            sandbox.files.make_dir(path)
        except SandboxException:
            continue
        raise AssertionError(f"files.make_dir({path!r}) succeeded")
    for path in (f"/etc/{t}", f"/usr/{t}", f"/root/{t}", f"/{t}"):
        assert not os.path.exists(path)

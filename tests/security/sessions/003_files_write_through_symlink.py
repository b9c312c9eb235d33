# why: files.write through a symlink aimed at host paths (/etc, /usr, /root, /work, /var/tmp, the host's /tmp canary) is refused by the read-only root or lands in the session's own workspace; the host gains no file and its canary is unchanged
import os

from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    t = host.token
    targets = [f"/etc/{t}", f"/usr/{t}", f"/root/{t}", f"/work/{t}", f"/var/tmp/{t}", f"/usr/lib/{t}",
               host.canary_path, f"/proc/{host.runner_pid}/root/tmp/{t}"]
    sandbox.commands.run("; ".join(f"ln -s {target} link{i}" for i, target in enumerate(targets)))
    for i, target in enumerate(targets):
        try:
            sandbox.files.write(f"link{i}", f"written through link{i} {t}")
        except SandboxException:
            pass
        if target != host.canary_path:
            assert not os.path.exists(target), f"files.write through a link created the host's {target}"
    assert open(host.canary_path).read() == host.canary_text, "the host canary changed"

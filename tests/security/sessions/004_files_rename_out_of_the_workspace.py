# why: files.rename to host-looking destinations (/etc, `..` chains, /proc/1/root, /root) is refused by the read-only root; renaming a link that points at a host file moves only the link; the host's /etc/passwd is unchanged
import os

from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    t = host.token
    passwd = host.sha256("/etc/passwd")
    sandbox.files.write("payload", f"payload {t}")
    for destination in [f"/etc/{t}", f"../../usr/{t}", f"/proc/1/root/etc/{t}", f"/root/{t}", f"/proc/self/cwd/../../etc/{t}"]:
        try:
            sandbox.files.rename("payload", destination)
        except SandboxException:
            continue
        raise AssertionError(f"files.rename to {destination} succeeded")
    for source in ["/etc/passwd", "../../etc/passwd", "/proc/1/root/etc/passwd"]:
        try:
            sandbox.files.rename(source, "stolen")
            raise AssertionError(f"files.rename of {source} succeeded")
        except SandboxException:
            pass
    sandbox.commands.run("ln -s /etc/passwd passwd-link")
    sandbox.files.rename("passwd-link", "moved-link")
    # Still a link (a listing shows links as links; get_info describes what one leads to, as envd's Stat does).
    listed = {entry.name: entry for entry in sandbox.files.list(".")}
    assert listed["moved-link"].type.value == "symlink" and "passwd-link" not in listed
    assert sandbox.files.get_info("moved-link").symlink_target == "/etc/passwd"
    assert host.sha256("/etc/passwd") == passwd and os.path.exists("/etc/passwd")

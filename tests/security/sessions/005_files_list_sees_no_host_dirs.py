# why: files.list walks the session's own root: the host's /work (other worktrees, shared data), /root's files, /tmp canary and the owner's /proc are not in any listing, also through links to / and /proc/1/root
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    sandbox.commands.run("ln -s / hostroot; ln -s /proc/1/root initroot")
    seen = []
    for path, depth in [("/", 2), ("/work", 3), ("/root", 1), ("/tmp", 1), ("hostroot", 2), ("initroot", 2),
                        (f"/proc/{host.runner_pid}", 1)]:
        try:
            seen += [entry.path for entry in sandbox.files.list(path, depth=depth)]
        except SandboxException:
            pass
    canary_name = host.canary_path.rsplit("/", 1)[1]
    forbidden = ["/work/main", "/work/shared", "/work/.library", "/etc/shadow", "/root/.bash_history", canary_name]
    hits = [path for path in seen for name in forbidden if name in path]
    assert not hits, f"host entries listed: {hits[:10]}"

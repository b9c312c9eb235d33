# why: files.list walks the session's own root: the host's /work (other worktrees, shared data), /root's files, /tmp canary and the owner's /proc are not in any listing, also through links to / and /proc/1/root
import os
import shutil
import sys
from pathlib import Path

from e2beval.sandbox import SandboxException


def interpreter_prefixes():
    """Host paths a session binds read-only on purpose: its Python's prefixes and Node.js's install prefix (when
    they live under /work, e.g. a checkout's .venv, their parent directories appear as empty mount points)."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}
    node = os.environ.get("E2BEVAL_NODE") or shutil.which("node")
    if node:
        prefixes.add(os.path.dirname(os.path.dirname(os.path.realpath(node))))
    return prefixes


def bound_on_purpose(path, prefixes):
    for link in ("/home/user/hostroot", "/home/user/initroot"):  # the links the attack made to / and /proc/1/root
        if path == link or path.startswith(link + "/"):
            path = path[len(link):] or "/"
    return any(path == prefix or path.startswith(prefix + "/") or prefix.startswith(path + "/") for prefix in prefixes)


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
    checkout = str(Path(__file__).resolve().parents[3])
    forbidden = [checkout + "/README.md", checkout + "/src", "/work/main", "/work/shared", "/work/.library", "/etc/shadow", "/root/.bash_history", canary_name]
    prefixes = interpreter_prefixes()
    hits = [path for path in seen for name in forbidden if name in path and not bound_on_purpose(path, prefixes)]
    assert not hits, f"host entries listed: {hits[:10]}"

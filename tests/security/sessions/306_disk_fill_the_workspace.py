# why: a command that writes without bound fills only the session's 16 MiB workspace tmpfs (ENOSPC inside); nothing reaches the host's /tmp, and after deleting the file the workspace is usable again
# create: {"timeout": 60, "limits": {"workspace_mb": 16}}
import os

from e2beval.sandbox import CommandExitException


def attack(sandbox, host):
    before = set(os.listdir("/tmp"))
    try:
        result = sandbox.commands.run(f"dd if=/dev/zero of=/home/user/fill-{host.token} bs=1M count=64")
        raise AssertionError(f"64 MiB fit into a 16 MiB workspace: {result.stderr}")
    except CommandExitException as full:
        assert "No space left" in full.stderr, full.stderr
    assert not [name for name in set(os.listdir("/tmp")) - before if host.token in name]
    sandbox.commands.run(f"rm /home/user/fill-{host.token}")
    sandbox.files.write("after.txt", "x" * 4096)
    assert sandbox.files.get_info("after.txt").size == 4096

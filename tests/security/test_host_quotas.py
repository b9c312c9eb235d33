"""Per-user kernel quotas: a sandbox's user namespace is owned by its own unprivileged host id, so what the
kernel counts per user across namespaces (inotify instances, message queues, queued signals) is charged to
that id and never to host root's shared budget (issue 13: one session holding 128 inotify instances made every
root process on the machine fail inotify_init1 with EMFILE)."""

import ctypes
import os

import pytest

import e2beval

# exclusive (docs/testing.md): a sandbox here holds every inotify instance the kernel lets one user have, which
# would make another worker's sandboxes fail; run alone.
pytestmark = pytest.mark.exclusive

HOLD_INOTIFY_INSTANCES = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
held = []
while len(held) < 400:
    fd = libc.inotify_init1(0)
    if fd < 0:
        break
    held.append(fd)
print(len(held), ctypes.get_errno())
"""


def host_can_create_an_inotify_instance() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(0)
    if fd < 0:
        return False
    os.close(fd)
    return True


@pytest.mark.skipif(os.geteuid() != 0, reason="as an ordinary user a sandbox runs as that user's own id by design; "
                    "the quota at stake is host root's, which only a root host shares with its sandboxes")
def test_a_session_holding_every_inotify_instance_it_can_leaves_host_root_able_to_create_one():
    limit = int(open("/proc/sys/fs/inotify/max_user_instances").read())
    with e2beval.Sandbox.create(timeout=60) as sandbox:
        execution = sandbox.run_code(HOLD_INOTIFY_INSTANCES, timeout=30)
        assert execution.error is None, execution.error
        held, _ = map(int, "".join(execution.logs.stdout).split())
        # It took all the kernel gives one user (its own id's budget), and still it is not host root's.
        assert held >= limit - 1, f"the session got only {held} inotify instances of {limit}"
        assert host_can_create_an_inotify_instance(), "host root could not create an inotify instance while a session held its quota"
    assert host_can_create_an_inotify_instance()

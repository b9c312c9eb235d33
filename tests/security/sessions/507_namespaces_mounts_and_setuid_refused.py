# why: from a command, unshare of new namespaces, mount, chroot and setuid(0) are refused (no capabilities, no_new_privs, seccomp); the user stays uid 1000 and the host's mount table is unchanged
from e2beval.sandbox import CommandExitException


def attack(sandbox, host):
    mounts = open("/proc/self/mountinfo").read()
    script = ("unshare -Ur id -u 2>/dev/null && echo UNSHARED; unshare -m true 2>/dev/null && echo UNSHARED-M; "
              "mount -t tmpfs none /mnt 2>/dev/null && echo MOUNTED; chroot / true 2>/dev/null && echo CHROOTED; "
              "python3 -c 'import os; os.setuid(0)' 2>/dev/null && echo ROOT; "
              "nsenter -t 1 -m true 2>/dev/null && echo NSENTER; id -u")
    out = sandbox.commands.run(script).stdout
    assert out.strip().splitlines()[-1] == "1000"
    assert not [word for word in ("UNSHARED", "MOUNTED", "CHROOTED", "ROOT", "NSENTER") if word in out], out
    assert open("/proc/self/mountinfo").read() == mounts

# why: files.write into a directory that a background command keeps swapping with links to /etc, /usr/lib and the owner's /proc root never creates a file on the host (the links resolve inside; the root is read-only)
import os

from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    t = host.token
    swapper = sandbox.commands.run(
        f"while :; do rm -rf d; mkdir d; rm -rf d; ln -s /etc d; rm -f d; ln -s /usr/lib d; rm -f d; "
        f"ln -s /proc/{host.runner_pid}/root/tmp d; rm -f d; done", background=True)
    for i in range(150):
        try:
            sandbox.files.write(f"d/{t}-{i}", t)
        except SandboxException:
            pass
    swapper.kill()
    for directory in ("/etc", "/usr/lib", "/tmp"):
        assert not [n for n in os.listdir(directory) if t in n], f"a racing files.write landed in the host's {directory}"

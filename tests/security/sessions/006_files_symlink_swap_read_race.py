# why: while a background command swaps a name between a regular file and links to host files, files.read of that name returns the benign file or an error, never a host secret (the links resolve inside the session's root)
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    sandbox.files.write("benign", "benign")
    swapper = sandbox.commands.run(
        f"while :; do ln -sfn /etc/shadow r; cp benign r.tmp; mv -f r.tmp r; ln -sfn {host.canary_path} r; "
        f"ln -sfn /proc/{host.runner_pid}/environ r; done", background=True)
    outcomes = set()
    for _ in range(150):
        try:
            text = sandbox.files.read("r")
            assert not host.leaked(text), "files.read during a symlink swap returned a host secret"
            assert "root:" not in text, "files.read during a symlink swap returned a shadow file"
            outcomes.add("read")
        except SandboxException:
            outcomes.add("error")
    swapper.kill()
    assert outcomes, "no read attempt completed"

# why: a symlink made inside names a path of the session's own root, so files.read through it never reaches the host's /etc/shadow, /tmp canary or the owner's /proc entries
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    targets = {"shadow": "/etc/shadow", "canary": host.canary_path, "environ": f"/proc/{host.runner_pid}/environ",
               "owner-root": f"/proc/{host.runner_pid}/root/etc/shadow", "history": "/root/.bash_history",
               "work": "/work/shared/DESIGN.md"}
    sandbox.commands.run("; ".join(f"ln -s {target} {name}" for name, target in targets.items()))
    host_shadow = open("/etc/shadow").read()
    for name in targets:
        for read in (lambda: sandbox.files.read(name), lambda: sandbox.files.read(name, format="bytes").decode("latin-1")):
            try:
                text = read()
            except SandboxException:
                continue
            assert not host.leaked(text), f"reading the link {name} gave a host secret"
            assert host_shadow not in text, f"the link {name} gave the host's /etc/shadow"
    # The cell's own open() follows the same links from inside.
    execution = sandbox.run_code("out = []\nfor n in %r:\n    try:\n        out.append(open(n).read())\n"
                                 "    except OSError as e:\n        out.append(type(e).__name__)\nout" % (list(targets),))
    assert not host.leaked(execution.text, execution.logs)
    assert host_shadow not in (execution.text or "")

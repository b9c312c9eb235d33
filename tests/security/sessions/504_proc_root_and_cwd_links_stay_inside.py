# why: /proc/*/root, /proc/*/cwd and /proc/self/root/.. lead to the session's own root: this checkout's files, the host's /work/shared and its /tmp canary are not behind them
from pathlib import Path

# A file only the host's checkout has (its interpreter's .venv may be bound read-only below the checkout, so the
# checkout's directory itself can exist inside as an empty mount point; its files must not).
CHECKOUT_FILE = str(Path(__file__).resolve().parents[3] / "README.md")


def attack(sandbox, host):
    targets = (CHECKOUT_FILE, "/work/shared", host.canary_path)
    probe = ("for p in /proc/[0-9]*; do for l in root cwd; do " + " ".join(f"ls -d $p/$l{t} 2>/dev/null;" for t in targets) +
             " done; done; " + " ".join(f"ls -d /proc/self/root/../..{t} 2>/dev/null;" for t in targets[:2]) + " true")
    found = sandbox.commands.run(probe).stdout
    assert found == "", f"host paths reachable through /proc links: {found}"
    execution = sandbox.run_code(f"import os\n[os.path.exists('/proc/1/root' + p) for p in {list(targets)!r}]")
    assert execution.text == "[False, False, False]", execution.text

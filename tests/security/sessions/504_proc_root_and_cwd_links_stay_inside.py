# why: /proc/*/root, /proc/*/cwd and /proc/self/root/.. lead to the session's own root: the host's /work/main, /work/shared and its /tmp canary are not behind them
def attack(sandbox, host):
    probe = ("for p in /proc/[0-9]*; do for l in root cwd; do ls -d $p/$l/work/main $p/$l/work/shared $p/$l" + host.canary_path +
             " 2>/dev/null; done; done; ls -d /proc/self/root/../../work/main /proc/self/root/../../work/shared 2>/dev/null; true")
    found = sandbox.commands.run(probe).stdout
    assert found == "", f"host paths reachable through /proc links: {found}"
    execution = sandbox.run_code(f"import os\n[os.path.exists('/proc/1/root' + p) for p in ('/work/main', '/work/shared', {host.canary_path!r})]")
    assert execution.text == "[False, False, False]", execution.text

# why: commands.kill(pid) of a background command that traps TERM, HUP and INT still ends it (and its children) while the session lives on
def attack(sandbox, host):
    handle = sandbox.commands.run(
        f"trap '' TERM HUP INT; python3 -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)' {host.token}",
        background=True)
    assert host.wait_until(lambda: host.processes_with_token(), 5)
    assert handle.kill() is True
    assert host.wait_until(lambda: not host.processes_with_token(), 5), \
        f"the command survived commands.kill: {host.processes_with_token()}"
    assert handle.pid not in [p.pid for p in sandbox.commands.list()]
    assert sandbox.commands.run("echo alive").stdout == "alive\n"

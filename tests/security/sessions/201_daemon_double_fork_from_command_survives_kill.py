# why: a double-forked, setsid'd daemon that ignores SIGTERM/SIGHUP, started by a command, is still a process of the session's pid namespace: kill() ends it (host /proc shows nothing of the session afterwards)
DAEMON = ("(setsid python3 -c 'import signal, time\n"
          "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT): signal.signal(s, signal.SIG_IGN)\n"
          "time.sleep(1000)' {token} </dev/null >/dev/null 2>&1 &)")


def attack(sandbox, host):
    sandbox.commands.run(DAEMON.format(token=host.token))
    assert host.wait_until(lambda: host.processes_with_token(), 5), "the daemon did not start"
    sandbox.kill()
    assert host.wait_session_gone(sandbox) == [], "processes of the session survived kill()"
    assert not host.processes_with_token(), f"the daemon survived kill(): {host.processes_with_token()}"

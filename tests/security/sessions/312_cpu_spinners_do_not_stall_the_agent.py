# why: background processes spinning on every core do not stop the agent from answering: calls keep returning (the host waits on the agent, which still gets scheduled), and kill() ends the spinners
def attack(sandbox, host):
    for _ in range(4):
        sandbox.commands.run(f"python3 -c 'while True: pass' {host.token}", background=True)
    assert host.wait_until(lambda: len(host.processes_with_token()) == 4, 5)
    for i in range(5):
        assert sandbox.run_code(f"{i} * 2").text == str(i * 2)
        assert sandbox.commands.run("echo ok").stdout == "ok\n"
    sandbox.kill()
    assert host.wait_session_gone(sandbox) == []

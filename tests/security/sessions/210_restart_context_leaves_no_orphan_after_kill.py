# why: a daemon forked by a cell survives restart_code_context and remove_code_context of its kernel (it is its own process), but not kill() of the session
def attack(sandbox, host):
    context = sandbox.create_code_context(language="python")
    sandbox.run_code(f"import subprocess\nsubprocess.Popen(['python3', '-c', 'import time; time.sleep(1000)', {host.token!r}], start_new_session=True)",
                     context=context)
    assert host.wait_until(lambda: host.processes_with_token(), 5)
    sandbox.restart_code_context(context)
    sandbox.remove_code_context(context)
    assert sandbox.run_code("'default context'").text == "'default context'"
    sandbox.kill()
    assert host.wait_session_gone(sandbox) == []
    assert not host.processes_with_token()

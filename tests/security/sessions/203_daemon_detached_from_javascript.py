# why: a detached, unref'd child spawned by a JavaScript cell outlives the cell but not the session: kill() ends it
CELL = """
const { spawn } = require('child_process');
const child = spawn('python3', ['-c', 'import time; time.sleep(1000)', %r], { detached: true, stdio: 'ignore' });
child.unref();
child.pid > 0
"""


def attack(sandbox, host):
    execution = sandbox.run_code(CELL % host.token, language="javascript")
    assert execution.error is None, execution.error
    assert host.wait_until(lambda: host.processes_with_token(), 5), "the detached child did not start"
    sandbox.kill()
    assert host.wait_session_gone(sandbox) == []
    assert not host.processes_with_token()

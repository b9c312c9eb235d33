# why: a bash fork bomb in a command is held by the session cgroup's pids.max (64, plus one for the sandbox's init): the host never sees more processes in the session's pid namespace than that, the call returns at its timeout, and kill() clears it all
# create: {"timeout": 60, "limits": {"max_processes": 64}}
# timeout: 40
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    # The cgroup's pids.max is the session's limit (the sandbox's init may get one more slot).
    pids_max = int(host.cgroup_file(sandbox, "pids.max"))
    assert 64 <= pids_max <= 65, pids_max
    try:
        sandbox.commands.run(":(){ :|:& };:", timeout=3)
    except SandboxException:
        pass
    population = len(host.session_pids(sandbox))
    assert population <= pids_max, f"{population} processes in a session whose pids.max is {pids_max}"
    sandbox.kill()
    assert host.wait_session_gone(sandbox, 10) == []

# why: the session's /proc is its own pid namespace's: the owner's host pid is absent or another process, only a handful of pids exist, and pid 1 is the sandbox's init, not the host's
def attack(sandbox, host):
    listing = sandbox.commands.run("ls /proc | grep -E '^[0-9]+$'").stdout.split()
    assert len(listing) < 20, f"{len(listing)} pids visible"
    mine = open(f"/proc/{host.runner_pid}/cmdline", "rb").read()
    execution = sandbox.run_code(f"import os\np = '/proc/{host.runner_pid}/cmdline'\nopen(p, 'rb').read() if os.path.exists(p) else None")
    assert execution.text in (None, "None") or mine.decode(errors="replace")[:40] not in execution.text
    init = sandbox.commands.run("tr '\\0' ' ' < /proc/1/cmdline; echo").stdout
    host_init = open("/proc/1/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace").strip()
    assert host_init not in init or not host_init, f"the session's pid 1 is the host's init: {init}"

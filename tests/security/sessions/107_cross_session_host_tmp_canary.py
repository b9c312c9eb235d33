# why: neither of two sessions sees the host's /tmp canary, whatever path they try, and a file named like it in one session is not the other's
# sessions: 2


def attack(first, second, host):
    first.commands.run(f"echo first-session > {host.canary_path}")
    for box in (first, second):
        execution = box.run_code(f"import os\n[open(p).read() for p in ({host.canary_path!r}, '/proc/1/root{host.canary_path}') if os.path.exists(p)]")
        assert not host.leaked(execution.text), "a session read the host's canary"
    assert not second.files.exists(host.canary_path)

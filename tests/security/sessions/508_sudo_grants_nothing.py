# why: the session's `sudo` (E2B's user has passwordless sudo, so code calls it) runs the command as the same user: every flag keeps uid 1000, no capability, no_new_privs and the seccomp filter (seen inside and from the host); it is a read-only, non-setuid script, and what needs root still fails
from e2beval.sandbox import CommandExitException

STATUS = "grep -E '^(Uid|Gid|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status"


def attack(sandbox, host):
    plain = sandbox.commands.run(STATUS).stdout
    assert "CapEff:\t0000000000000000" in plain and "NoNewPrivs:\t1" in plain and "Seccomp:\t2" in plain, plain
    assert "Uid:\t1000\t1000\t1000\t1000" in plain, plain
    for prefix in ("sudo", "sudo -u root", "sudo -u '#0'", "sudo -E -H -n -S", "sudo -i", "sudo -s", "sudo -- env"):
        assert sandbox.commands.run(f"{prefix} {STATUS}").stdout == plain, prefix
    shim = sandbox.commands.run("command -v sudo").stdout.strip()
    assert sandbox.commands.run(f"stat -c '%a %u' {shim}").stdout == "555 1000\n"  # no setuid or setgid bit
    for attempt in (f"echo 'id' > {shim}", f"chmod 4755 {shim}", f"sudo chmod u+s {shim}", "sudo -u root touch /etc/x",
                    "sudo mount -t tmpfs none /home/user", "sudo python3 -c 'import os; os.setuid(0)'",
                    "sudo unshare -U -r id -u", "sudo -R / true", "sudo chown 0 /home/user"):
        try:
            result = sandbox.commands.run(attempt)
        except CommandExitException:
            continue
        raise AssertionError(f"{attempt!r} succeeded: {result.stdout!r}")
    assert sandbox.commands.run("sudo -u root id -u; sudo -i id -u; sudo -s id -un").stdout == "1000\n1000\nuser\n"

    # From the host: a process started through sudo holds no host root and no capability.
    handle = sandbox.commands.run(f"sudo sh -c 'sleep 60; : {host.token}'", background=True)

    def started_through_sudo():
        for pid in host.session_pids(sandbox):
            try:
                if host.token.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                    return pid
            except OSError:
                pass  # ended while we looked
        return None

    assert host.wait_until(lambda: started_through_sudo() is not None, 10)
    status_text = open(f"/proc/{started_through_sudo()}/status").read()
    status = dict(line.split(":", 1) for line in status_text.splitlines() if ":" in line)
    assert all(field != "0" for field in status["Uid"].split()), status["Uid"]
    assert status["CapEff"].strip() == "0000000000000000" and status["NoNewPrivs"].strip() == "1"
    assert status["Seccomp"].strip() == "2"
    handle.kill()

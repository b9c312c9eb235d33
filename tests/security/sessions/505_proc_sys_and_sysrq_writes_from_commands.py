# why: a command cannot write kernel tunables: /proc/sys is read-only and /proc/sysrq-trigger refused inside the session; the host's hostname, core_pattern and overcommit settings are unchanged
from e2beval.sandbox import CommandExitException


def attack(sandbox, host):
    watched = ["/proc/sys/kernel/hostname", "/proc/sys/kernel/core_pattern", "/proc/sys/vm/overcommit_memory",
               "/proc/sys/kernel/pid_max"]
    before = {path: open(path).read() for path in watched}
    for path, value in [("/proc/sys/kernel/hostname", "pwned"), ("/proc/sys/kernel/core_pattern", "|/tmp/x"),
                        ("/proc/sys/vm/overcommit_memory", "1"), ("/proc/sys/kernel/pid_max", "400000"),
                        ("/proc/sysrq-trigger", "h"), ("/proc/sys/vm/drop_caches", "3")]:
        try:
            sandbox.commands.run(f"echo {value} > {path}")
            raise AssertionError(f"a command wrote {path}")
        except CommandExitException:
            pass
    try:
        sandbox.commands.run("hostname pwned")
    except CommandExitException:
        pass
    assert {path: open(path).read() for path in watched} == before

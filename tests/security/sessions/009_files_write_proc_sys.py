# why: files.write to kernel tunables (/proc/sys, /proc/sysrq-trigger, another process's /proc files) is refused: /proc/sys is read-only in the session and the agent writes only in the workspace and /dev/shm; the host's hostname is unchanged
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    hostname = open("/proc/sys/kernel/hostname").read()
    core_pattern = open("/proc/sys/kernel/core_pattern").read()
    for path, data in [("/proc/sys/kernel/hostname", "pwned"), ("/proc/sysrq-trigger", "h"),
                       ("/proc/sys/kernel/core_pattern", "|/tmp/x"), ("/proc/1/oom_score_adj", "-1000"),
                       ("/proc/self/attr/current", "unconfined"), ("/proc/sys/vm/drop_caches", "3")]:
        try:
            sandbox.files.write(path, data)
        except SandboxException:
            continue
        raise AssertionError(f"files.write to {path} succeeded")
    assert open("/proc/sys/kernel/hostname").read() == hostname
    assert open("/proc/sys/kernel/core_pattern").read() == core_pattern

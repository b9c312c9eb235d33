# why: a cell that prints 100 MB in many lines and writes 50 MB to stderr gets each stream cut at 1 MiB with the marker; the host's peak memory stays far below the output's size
# timeout: 90
import resource


def attack(sandbox, host):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    execution = sandbox.run_code("import sys\nline = 'y' * 99 + '\\n'\nfor _ in range(1000000):\n    sys.stdout.write(line)\n"
                                 "for _ in range(500000):\n    sys.stderr.write(line)\n'done'", timeout=120)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    stdout, stderr = "".join(execution.logs.stdout), "".join(execution.logs.stderr)
    assert len(stdout) <= (1 << 20) + 200 and "stdout truncated" in stdout, len(stdout)
    assert len(stderr) <= (1 << 20) + 200 and "stderr truncated" in stderr, len(stderr)
    assert execution.text == "'done'"
    assert grown_mib < 64, f"the host process grew by {grown_mib:.0f} MiB"

# why: 200 MB of stdout from a command is cut at the session's 1 MiB cap with the marker; the host process's peak memory grows by far less than the output
import resource


def attack(sandbox, host):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = sandbox.commands.run("head -c 200000000 /dev/zero | tr '\\0' x", timeout=60)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert len(result.stdout) <= (1 << 20) + 200, len(result.stdout)
    assert "truncated after 1 MiB" in result.stdout
    assert grown_mib < 64, f"the host process grew by {grown_mib:.0f} MiB for a capped output"
    assert sandbox.commands.run("echo small").stdout == "small\n"

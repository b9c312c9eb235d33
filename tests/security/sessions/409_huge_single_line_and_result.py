# why: one 64 MB line with no newline, and a 64 MB value as the cell's result, are cut (1 MiB per stream, 1 MiB of result text) before they reach the host
import resource


def attack(sandbox, host):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    execution = sandbox.run_code("import os\nos.write(1, b'z' * (64 << 20))\n'w' * (64 << 20)", timeout=60)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert len("".join(execution.logs.stdout)) <= (1 << 20) + 200
    assert execution.text is not None and len(execution.text) <= (1 << 20) + 100, len(execution.text or "")
    assert grown_mib < 64, f"the host process grew by {grown_mib:.0f} MiB"
    result = sandbox.commands.run("head -c 67108864 /dev/zero | tr '\\0' q", timeout=60)
    assert len(result.stdout) <= (1 << 20) + 200

# why: an exception whose message is 50 MB is not shipped whole to the host: error.value and the traceback come back bounded, and the session keeps working
import resource


def attack(sandbox, host):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    execution = sandbox.run_code("raise ValueError('v' * 50_000_000)", timeout=60)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert execution.error is not None
    size = len(execution.error.value) + len(execution.error.traceback)
    assert size <= 4 << 20, f"an error of {size} bytes reached the host"
    assert grown_mib < 64, f"the host process grew by {grown_mib:.0f} MiB"
    assert sandbox.run_code("'after'").text == "'after'"

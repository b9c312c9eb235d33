# why: creating 30 code contexts in a 2 GiB session (30 IPython kernels fit; plain ones need a tenth) either works (each keeps its own state) or fails with a SandboxException; it never hangs, the session's processes stay within its cgroup, and removing them frees their kernels
# create: {"timeout": 170, "limits": {"memory_mb": 2048, "max_processes": 128}}
# timeout: 180
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    contexts = []
    for i in range(30):
        try:
            context = sandbox.create_code_context(language="python")
            first = sandbox.run_code(f"mine = {i}", context=context)
        except SandboxException:
            break
        if first.error is not None:  # its kernel did not fit (an IPython kernel is several times a plain one's size)
            break
        contexts.append((i, context))
    assert contexts, "not even one extra context could be created"
    for i, context in contexts:
        # Its own state, or, when the memory limit ended its kernel meanwhile, a fresh kernel that says so: never
        # another context's state.
        mine = sandbox.run_code("mine", context=context)
        assert mine.text == str(i) or "state is lost" in "".join(mine.logs.stderr), (i, mine)
    grown = len(host.session_pids(sandbox))
    for _, context in contexts:
        sandbox.remove_code_context(context)
    assert host.wait_until(lambda: len(host.session_pids(sandbox)) <= grown - len(contexts), 5), \
        "removed contexts left their kernels running"
    assert sandbox.run_code("'default'").text == "'default'"

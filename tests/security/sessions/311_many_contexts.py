# why: creating 30 code contexts in a 512 MiB session either works (each keeps its own state) or fails with a SandboxException; it never hangs, the session's processes stay within its cgroup, and removing them frees their kernels
# create: {"timeout": 90, "limits": {"memory_mb": 512, "max_processes": 128}}
# timeout: 60
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    contexts = []
    for i in range(30):
        try:
            context = sandbox.create_code_context(language="python")
            sandbox.run_code(f"mine = {i}", context=context)
            contexts.append((i, context))
        except SandboxException:
            break
    assert contexts, "not even one extra context could be created"
    for i, context in contexts:
        assert sandbox.run_code("mine", context=context).text == str(i)
    grown = len(host.session_pids(sandbox))
    for _, context in contexts:
        sandbox.remove_code_context(context)
    assert host.wait_until(lambda: len(host.session_pids(sandbox)) <= grown - len(contexts), 5), \
        "removed contexts left their kernels running"
    assert sandbox.run_code("'default'").text == "'default'"

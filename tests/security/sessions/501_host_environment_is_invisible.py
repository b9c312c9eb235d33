# why: the session starts with a scrubbed environment: secrets in the owner's environment (E2B_API_KEY, a host secret) appear in no cell's os.environ, no command's env, no /proc/*/environ inside, nor Node's process.env
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    seen = [sandbox.run_code("import os\ndict(os.environ)").text,
            sandbox.commands.run("env; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; true").stdout,
            sandbox.run_code("JSON.stringify(process.env)", language="javascript").text]
    # The files API reads as the agent; the agent's and the init's environ are not readable (both non-dumpable):
    # nothing to leak there, and where one is readable, it must hold no host secret.
    for path in ("/proc/self/environ", "/proc/1/environ"):
        try:
            seen.append(sandbox.files.read(path))
        except SandboxException:
            pass
    leaked = host.leaked(*seen)
    assert not leaked, "host secrets visible in the session"
    assert host.env_canary_name not in "".join(s or "" for s in seen)

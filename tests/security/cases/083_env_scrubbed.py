# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: lists the whole environment; nothing from the host's environment may reach the program, only the documented base set plus what the caller passed (the runner passes CANARY_PATH, HOST_PORT, ... explicitly).
import os
base = {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "USER", "HOSTNAME"}
passed = {"CANARY_PATH", "HOST_PORT", "HOST_UDP_PORT", "HOST_ABSTRACT", "HOST_PID", "TOKEN", "INTERPRETER_PREFIXES"}
extra = sorted(set(os.environ) - base - passed)
print(("LEAKED unexpected variables " + ",".join(extra)) if extra else "BLOCKED environment is scrubbed")
print(f"INFO HOME={os.environ.get('HOME')} PATH={os.environ.get('PATH')} HOSTNAME={os.environ.get('HOSTNAME')}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: the runner sets E2B_API_KEY in its own environment; the program looks for it everywhere it could appear (os.environ, /proc/self/environ, /proc/1/environ, every /proc/*/environ, /proc/1/cmdline). The sandbox scrubs the environment and init is non-dumpable.
import os
hits = []
if any("E2B" in k or "API_KEY" in k for k in os.environ):
    hits.append("os.environ")
for p in ["self", "1", "thread-self"] + [p for p in os.listdir("/proc") if p.isdigit()]:
    for f in ("environ", "cmdline"):
        try:
            data = open(f"/proc/{p}/{f}", "rb").read()
        except OSError:
            continue
        if b"E2B_API_KEY" in data or b"leak-canary" in data:
            hits.append(f"/proc/{p}/{f}")
print(("LEAKED " + ",".join(sorted(set(hits)))) if hits else "BLOCKED E2B_API_KEY not found anywhere")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: the runner writes a canary file into the host's /tmp and passes its path; the sandbox's /tmp is its own tmpfs, so neither the path nor its name may be visible.
import os
path = os.environ["CANARY_PATH"]
name = os.path.basename(path)
for candidate in [path, "/tmp/" + name, "/proc/1/root" + path, "/proc/self/root" + path, "/proc/1/cwd/" + name]:
    try:
        data = open(candidate, "rb").read()
    except OSError as e:
        print(f"BLOCKED {candidate}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED {candidate}: {data[:60]!r}")
entries = os.listdir("/tmp")
print(("LEAKED" if name in entries else "BLOCKED") + f" /tmp lists {sorted(entries)[:10]}")

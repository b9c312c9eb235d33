# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: reads the host's /root (ssh keys, shell history, cloud credentials); /root of the host is not mounted (only the interpreter prefix under it may be).
import os, sys
prefix_parts = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)} | set(filter(None, os.environ.get("INTERPRETER_PREFIXES", "").split(":")))
for path in ["/root/.ssh/id_rsa", "/root/.ssh/id_ed25519", "/root/.ssh/authorized_keys", "/root/.bash_history",
             "/root/.aws/credentials", "/root/.config/gcloud/credentials.db", "/root/.netrc", "/root/.gitconfig",
             "/root/.docker/config.json", "/home"]:
    try:
        if os.path.isdir(path):
            entries = os.listdir(path)
            print(("LEAKED" if entries else "BLOCKED") + f" {path}: dir with {entries[:5]}")
            continue
        data = open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED {path}: {len(data)} bytes")
# Whatever of /root is visible must only be the path down to the interpreter prefix.
try:
    for entry in os.listdir("/root"):
        full = "/root/" + entry
        if not any(p == full or p.startswith(full + "/") for p in prefix_parts):
            print(f"LEAKED /root lists {entry}")
        else:
            print(f"BLOCKED /root shows only the interpreter path {entry}")
except OSError as e:
    print(f"BLOCKED /root not listable: {e.errno}")

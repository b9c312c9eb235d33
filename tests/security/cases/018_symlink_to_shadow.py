# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: a symlink in the workspace pointing to /etc/shadow, /root/.ssh and the project; symlinks resolve inside the sandbox's root, where those do not exist.
import os
os.chdir("/tmp")
for i, target in enumerate(["/etc/shadow", "/root/.ssh/id_rsa", "/work/main/pyproject.toml", "/work/shared/DESIGN.md", "../../../../etc/shadow"]):
    link = f"/tmp/link{i}"
    os.symlink(target, link)
    try:
        data = open(link, "rb").read()
    except OSError as e:
        print(f"BLOCKED {link} -> {target}: {e.errno}")
    else:
        print(f"LEAKED {link} -> {target}: {len(data)} bytes")

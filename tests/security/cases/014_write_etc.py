# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: writes to /etc (passwd, ld.so.cache, ld.so.preload, a new file); /etc inside is the read-only generated root, the host's /etc must never be touched.
import os
token = os.environ["TOKEN"]
for path, mode in [("/etc/passwd", "a"), ("/etc/ld.so.cache", "r+b"), ("/etc/ld.so.preload", "w"),
                   (f"/etc/{token}-etc", "w"), ("/etc/hosts", "a")]:
    try:
        with open(path, mode) as f:
            f.write(b"x" if "b" in mode else "x")
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED wrote {path}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: writes into the host's /usr (bound read-only): new files, overwriting /usr/bin/env, chmod, rename, unlink.
import os
token = os.environ["TOKEN"]
for path in [f"/usr/{token}-usr", f"/usr/bin/{token}-usr", f"/usr/lib/{token}-usr"]:
    try:
        with open(path, "w") as f:
            f.write("x")
    except OSError as e:
        print(f"BLOCKED create {path}: {e.errno}")
    else:
        print(f"LEAKED created {path}")
for name, action in [("open /usr/bin/env for write", lambda: open("/usr/bin/env", "r+b")),
                     ("chmod /usr/bin/env", lambda: os.chmod("/usr/bin/env", 0o777)),
                     ("unlink /usr/bin/env", lambda: os.unlink("/usr/bin/env")),
                     ("rename /usr/bin/env", lambda: os.rename("/usr/bin/env", f"/usr/bin/{token}-renamed")),
                     ("utime /usr/bin/env", lambda: os.utime("/usr/bin/env", (0, 0)))]:
    try:
        action()
    except OSError as e:
        print(f"BLOCKED {name}: {e.errno}")
    else:
        print(f"LEAKED {name}")

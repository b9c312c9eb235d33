# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: creates files and directories at / (the read-only tmpfs root); the runner checks the host's / for the token afterwards.
import os
token = os.environ["TOKEN"]
for path in [f"/{token}-root", f"/bin/{token}-bin", f"/lib/{token}-lib"]:
    try:
        with open(path, "w") as f:
            f.write("x")
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED created {path}")
try:
    os.mkdir(f"/{token}-dir")
except OSError as e:
    print(f"BLOCKED mkdir: {e.errno}")
else:
    print("LEAKED mkdir at /")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: reads the project (/work/main sources) and /work/shared from inside; only the interpreter's virtualenv under /work/main may be bound.
import os, sys
for path in ["/work/main/pyproject.toml", "/work/main/src/local/contain.cpp", "/work/main/docs/sandbox.md",
             "/work/main/.git/config", "/work/shared/DESIGN.md", "/work/main/CMakeLists.txt"]:
    try:
        data = open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED {path}: {len(data)} bytes")
# INTERPRETER_PREFIXES: the runner's interpreter prefixes (e.g. its virtualenv), which the sandbox binds read-only by design
allowed = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)} | set(filter(None, os.environ.get("INTERPRETER_PREFIXES", "").split(":")))
def walk(d, depth):
    try:
        entries = os.listdir(d)
    except OSError as e:
        print(f"BLOCKED {d}: {e.errno}")
        return
    for e in entries:
        full = os.path.join(d, e)
        if any(p == full or p.startswith(full + "/") for p in allowed):
            if depth < 3 and not any(p == full for p in allowed):
                walk(full, depth + 1)
        else:
            print(f"LEAKED {d} lists {e}")
if os.path.exists("/work"):
    walk("/work", 0)
print("BLOCKED walk of /work done")

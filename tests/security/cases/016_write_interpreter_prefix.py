# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: plants code in the interpreter's prefix (site-packages, a .pth file, the stdlib) to persist into later runs and into the host's own Python; the prefix is bound read-only.
import os, sys, sysconfig
token = os.environ["TOKEN"]
dirs = {sys.prefix, sys.base_prefix, *filter(None, os.environ.get("INTERPRETER_PREFIXES", "").split(":")), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"], os.path.dirname(os.__file__)}
for d in sorted(dirs):
    path = os.path.join(d, f"{token}-prefix.pth")
    try:
        with open(path, "w") as f:
            f.write("import os\n")
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED created {path}")
try:
    with open(os.__file__, "a") as f:
        f.write("\n")
except OSError as e:
    print(f"BLOCKED append to os.py: {e.errno}")
else:
    print("LEAKED appended to os.py")

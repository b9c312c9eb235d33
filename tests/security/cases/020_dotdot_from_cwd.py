# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: climbs out of the workspace with ../../.. (the old host root was detached after pivot_root, so .. of / is /).
import os
os.chdir("/tmp")
up = "../" * 12
print(f"INFO realpath of {up} is {os.path.realpath(up)}")
for rel in ["etc/shadow", "work/main/pyproject.toml", "work/shared/DESIGN.md", "root/.ssh/id_rsa", "home"]:
    path = up + rel
    try:
        data = os.listdir(path) if rel == "home" else open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.errno}")
    else:
        print(f"LEAKED {path}: {str(data)[:60]}")
top = sorted(os.listdir(up))
print(f"INFO {up} lists {top}")
if "shared" in os.listdir(up + "work") if os.path.isdir(up + "work") else False:
    print("LEAKED /work/shared visible")
print("BLOCKED climb ended at the sandbox root" if os.stat(up).st_ino == os.stat("/").st_ino else "LEAKED climbed above /")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: hard-links a read-only host file (su, the interpreter) into the writable workspace to modify it or keep it; link across mounts is EXDEV.
import os, sys
for src in ["/usr/bin/su", "/etc/passwd", os.path.realpath(sys.executable)]:
    dst = "/tmp/hl-" + os.path.basename(src)
    try:
        os.link(src, dst)
    except OSError as e:
        print(f"BLOCKED link {src}: {e.errno}")
        continue
    try:
        open(dst, "ab").write(b"x")
    except OSError as e:
        print(f"BLOCKED linked {src} but cannot write: {e.errno}")
    else:
        print(f"LEAKED wrote through a hard link to {src}")

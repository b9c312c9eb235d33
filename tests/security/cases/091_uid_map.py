# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: /proc/self/uid_map and gid_map must map exactly one id (1000 inside → one unprivileged host id, never host 0) and setgroups must be denied; a wider map would let the program reach other host users' files.
import os
for name in ("uid_map", "gid_map"):
    lines = [l.split() for l in open(f"/proc/self/{name}").read().splitlines()]
    ok = len(lines) == 1 and lines[0][0] == "1000" and lines[0][2] == "1" and lines[0][1] != "0"
    print(("BLOCKED" if ok else "LEAKED") + f" {name} {lines}")
setgroups = open("/proc/self/setgroups").read().strip()
print(f"INFO setgroups {setgroups}")
print(("BLOCKED" if (os.getuid(), os.getgid()) == (1000, 1000) else "LEAKED") + f" ids {os.getuid()}:{os.getgid()}")
for name, text in [("uid_map", b"0 0 4294967295\n"), ("gid_map", b"0 0 4294967295\n")]:
    try:
        fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
        os.write(fd, text)
    except OSError as e:
        print(f"BLOCKED rewriting {name}: {e.errno}")
    else:
        print(f"LEAKED rewrote {name}")
now = open("/proc/self/uid_map").read().split()
print(("BLOCKED" if now[:1] == ["1000"] else "LEAKED") + f" uid_map after the attempt {now}")

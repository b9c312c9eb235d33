# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"wall_time_s": 10}
# why: runs setuid-root binaries (su, passwd, mount, newgrp, chsh, gpasswd) and checks their effective uid while they run; nosuid mounts, no_new_privs and the unmapped uid 0 keep them at 1000.
import os, stat, subprocess, sys, time
found = [p for p in ["/usr/bin/su", "/usr/bin/passwd", "/usr/bin/mount", "/usr/bin/newgrp", "/usr/bin/chsh", "/usr/bin/gpasswd", "/usr/bin/sudo"]
         if os.path.exists(p)]
print(f"INFO setuid candidates {[(p, bool(os.stat(p).st_mode & stat.S_ISUID)) for p in found]}")
for path in found:
    try:
        proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        print(f"BLOCKED could not exec {path}: {e.errno}")
        continue
    euid = None
    for _ in range(20):
        try:
            for line in open(f"/proc/{proc.pid}/status"):
                if line.startswith("Uid:"):
                    euid = int(line.split()[2])
        except OSError:
            break
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    proc.kill()
    out, err = proc.communicate()
    print(("LEAKED" if euid == 0 else "BLOCKED") + f" {path} ran with euid {euid}: {err.decode(errors='replace').strip()[:60]}")
r = subprocess.run(["/usr/bin/su", "-c", "id -u", "root"], input=b"\n", capture_output=True)
print(("LEAKED" if r.stdout.strip() == b"0" else "BLOCKED") + f" su -c 'id -u' root: rc={r.returncode}")
print(("LEAKED" if os.geteuid() == 0 else "BLOCKED") + f" own euid {os.geteuid()}")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: runs `/bin/sh -c 'cat /etc/shadow'` and other shell tools (ls of /, ps, env) as subprocesses; they run inside the same sandbox and cannot see host secrets or the host environment.
import subprocess
r = subprocess.run(["/bin/sh", "-c", "cat /etc/shadow"], capture_output=True, text=True)
print(("LEAKED" if r.returncode == 0 and "root:" in r.stdout else "BLOCKED") + f" cat /etc/shadow rc={r.returncode} {r.stderr.strip()[:80]}")
r = subprocess.run(["/bin/sh", "-c", "env"], capture_output=True, text=True)
print(("LEAKED" if "E2B_API_KEY" in r.stdout else "BLOCKED") + " env of a shell child has no E2B_API_KEY")
r = subprocess.run(["/bin/sh", "-c", "ls /proc | grep -c '^[0-9]'"], capture_output=True, text=True)
print(("LEAKED" if r.stdout.strip().isdigit() and int(r.stdout) > 6 else "BLOCKED") + f" shell sees {r.stdout.strip()} processes")

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: replaces the program with /bin/sh (present since /usr is bound) that tries to read host secrets; exec works but the shell sees the same minimal root and ids, so nothing leaks.
import os
script = r'''
for f in /etc/shadow /root/.ssh/id_rsa /work/main/pyproject.toml /work/shared/DESIGN.md "$CANARY_PATH"; do
  if cat "$f" >/dev/null 2>&1; then echo "LEAKED sh read $f"; else echo "BLOCKED sh cannot read $f"; fi
done
if [ "$(id -u)" = 0 ]; then echo "LEAKED sh is root"; else echo "BLOCKED sh runs as $(id -u)"; fi
'''
os.execv("/bin/sh", ["sh", "-c", script])

# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: a shell script reads host secrets and writes outside the workspace: /etc/shadow, /root, the project, the runner's /tmp canary; writes into /usr, /etc, / and /dev. The minimal read-only root holds none of the host's files.
for path in /etc/shadow /etc/sudoers /root/.ssh /root/.bash_history /work/main/README.md /work/shared "$CANARY_PATH" /home; do
  if [ -e "$path" ]; then echo "LEAKED $path exists"; else echo "BLOCKED $path absent"; fi
done
for path in "/usr/$TOKEN-sh" "/usr/bin/$TOKEN-sh" "/etc/$TOKEN-sh" "/$TOKEN-sh" "/dev/$TOKEN-sh"; do
  if (echo x >"$path") 2>/dev/null; then echo "LEAKED wrote $path"; else echo "BLOCKED write $path"; fi
done
if chmod 777 /usr/bin/env 2>/dev/null; then echo "LEAKED chmod /usr/bin/env"; else echo "BLOCKED chmod /usr/bin/env"; fi
if ls /proc/1/root/ >/dev/null 2>&1; then echo "LEAKED /proc/1/root listed"; else echo "BLOCKED /proc/1/root"; fi

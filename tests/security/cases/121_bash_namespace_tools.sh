# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: uses the system's tools to leave the sandbox: unshare (new user namespace), mount, nsenter into pid 1, chroot, writing /proc/sysrq-trigger and sysctl; seccomp denies the namespace and mount calls, there are no capabilities, and /proc/sys is read-only.
try() {
  local name=$1; shift
  if "$@" >/dev/null 2>&1; then echo "LEAKED $name"; else echo "BLOCKED $name"; fi
}
try "unshare -r" unshare -r true
try "unshare -m" unshare -m true
try "mount tmpfs" mount -t tmpfs none /tmp
try "nsenter pid 1" nsenter -t 1 -a true
try "chroot /" chroot / true
try "sysrq-trigger" sh -c 'echo h > /proc/sysrq-trigger'
try "sysctl write" sh -c 'echo 1 > /proc/sys/kernel/sysrq'
try "hostname" hostname pwned

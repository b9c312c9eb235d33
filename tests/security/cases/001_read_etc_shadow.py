# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: reads the host's /etc/shadow (and gshadow, sudoers); the minimal root has a generated /etc without them.
for path in ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_rsa_key"]:
    try:
        data = open(path, "rb").read()
    except OSError as e:
        print(f"BLOCKED {path}: {e.__class__.__name__} {e.errno}")
    else:
        print(f"LEAKED {path}: {len(data)} bytes {data[:40]!r}")

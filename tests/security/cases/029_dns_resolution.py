# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: resolves public names (DNS exfiltration channel: the query itself leaks data); no resolv.conf, no route, no AF_INET sockets after seccomp.
import socket
for name in ["example.com", "e2beval-exfil-test.invalid", "dns.google"]:
    try:
        info = socket.getaddrinfo(name, 53)
    except OSError as e:
        print(f"BLOCKED resolve {name}: {e.__class__.__name__} {e}")
    else:
        print(f"LEAKED resolved {name}: {info[0][4]}")

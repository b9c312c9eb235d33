# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: connects to a public IP literal (1.1.1.1:53 over TCP, a DNS query over UDP, and IPv6 2606:4700:4700::1111) with a 1 s timeout; no route out of the net namespace.
import socket
attempts = [(socket.AF_INET, socket.SOCK_STREAM, ("1.1.1.1", 53)), (socket.AF_INET, socket.SOCK_DGRAM, ("1.1.1.1", 53)),
            (socket.AF_INET6, socket.SOCK_STREAM, ("2606:4700:4700::1111", 53))]
query = bytes.fromhex("abcd01000001000000000000") + b"\x07example\x03com\x00\x00\x01\x00\x01"
for family, kind, address in attempts:
    try:
        s = socket.socket(family, kind)
    except OSError as e:
        print(f"BLOCKED socket({family!r}, {kind!r}): {e.errno}")
        continue
    s.settimeout(1)
    try:
        if kind == socket.SOCK_STREAM:
            s.connect(address)
            print(f"LEAKED TCP connected to {address}")
        else:
            s.sendto(query, address)
            data = s.recv(512)
            print(f"LEAKED UDP answer from {address}: {len(data)} bytes")
    except OSError as e:
        print(f"BLOCKED {kind!r} {address}: {e.__class__.__name__} {e.errno}")
    finally:
        s.close()

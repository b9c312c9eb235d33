# why: UDP datagrams to the host's 127.0.0.1 from a cell and from bash's /dev/udp never arrive (no AF_INET sockets, own network namespace)
# create: {"timeout": 60, "allow_internet_access": false}
def attack(sandbox, host):
    port = host.udp_port
    sandbox.run_code(f"import socket\ntry:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'leak', ('127.0.0.1', {port}))\n"
                     "except OSError:\n    pass")
    sandbox.commands.run(f"echo leak > /dev/udp/127.0.0.1/{port} 2>/dev/null; true")
    sandbox.commands.run(f"python3 -c \"import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b'x', ('::1', {port}))\" 2>/dev/null; true")

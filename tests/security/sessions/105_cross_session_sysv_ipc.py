# why: System V shared memory and message queues live in the ipc namespace: what one session creates, the other session and the host do not see
# sessions: 2
from e2beval.sandbox import CommandExitException


def attack(first, second, host):
    try:
        made = first.commands.run("ipcmk -M 4096; ipcmk -Q; ipcs -m -q").stdout
    except CommandExitException as refused:
        made = refused.stdout + refused.stderr  # refused inside is contained too
    keys = [line.split()[0] for line in made.splitlines() if line.startswith("0x") and line.split()[0] != "0x00000000"]
    other = second.commands.run("ipcs -m -q").stdout
    assert not [k for k in keys if k in other], f"the other session sees {keys}: {other}"
    host_ipc = open("/proc/sysvipc/shm").read() + open("/proc/sysvipc/msg").read()
    host_keys = {line.split()[0] for line in host_ipc.splitlines()[1:] if line.split()}
    as_decimal = {str(int(k, 16)) for k in keys}
    assert not (as_decimal & host_keys - {"0"}), f"the host's ipc namespace holds {as_decimal & host_keys}"

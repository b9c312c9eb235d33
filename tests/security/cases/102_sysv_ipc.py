# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: System V IPC (shm, semaphores, message queues) of the host: the IPC namespace is new, so the host's segments are invisible and what the program creates vanishes with it.
import ctypes
for name in ("shm", "sem", "msg"):
    try:
        lines = open(f"/proc/sysvipc/{name}").read().splitlines()[1:]
    except OSError as e:
        print(f"BLOCKED /proc/sysvipc/{name}: {e.errno}")
        continue
    print(("LEAKED" if lines else "BLOCKED") + f" /proc/sysvipc/{name} has {len(lines)} entries")
libc = ctypes.CDLL(None, use_errno=True)
shmid = libc.shmget(0, 1 << 20, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
print(f"INFO shmget inside the sandbox -> {shmid} (lives only in the sandbox's IPC namespace)")

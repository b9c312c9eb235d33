# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# limits: {"wall_time_s": 5}
# why: kill(-1, SIGKILL) sends to every process the caller may signal; in the pid namespace that is only the sandbox's own processes (not init, not the host). The program survives (the sender is exempt) and so must the host.
import os, signal, time
child = os.fork()
if child == 0:
    time.sleep(30)
    os._exit(0)
try:
    os.kill(-1, signal.SIGKILL)
except OSError as e:
    print(f"INFO kill(-1) failed: {e.errno}")
_, status = os.waitpid(child, 0)
print(f"INFO own child ended with status {status}")
print("BLOCKED kill(-1) only reached the sandbox (the runner checks the host)")

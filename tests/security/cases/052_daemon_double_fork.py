# expect-outcome: ok
# limits: {"wall_time_s": 5}
# why: daemonises (fork, setsid, fork, close fds) and execs `python -c 'import time; time.sleep(300)' TOKEN`, then the program exits at once; the pid-namespace init exiting must kill the daemon. The runner checks that no host process has TOKEN in its argv.
import os, sys
token = os.environ["TOKEN"]
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.chdir("/")
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", token])
os.waitpid(pid, 0)
import time
time.sleep(0.3)  # let the grandchild exec
print("daemon started; parent exits")

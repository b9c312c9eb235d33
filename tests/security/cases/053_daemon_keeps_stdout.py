# expect-outcome: ok
# limits: {"wall_time_s": 5}
# why: a double-forked daemon that keeps stdout/stderr open (so the output pipes never reach EOF) and ignores SIGHUP/SIGTERM; the run must still end as soon as the program exits and the daemon (TOKEN in argv) must not survive on the host.
import os, sys, time
token = os.environ["TOKEN"]
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    os.execv(sys.executable, [sys.executable, "-c",
             "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\ntime.sleep(300)",
             token])
os.waitpid(pid, 0)
time.sleep(0.3)
print("parent exits while the daemon holds stdout")

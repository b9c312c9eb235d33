# expect-outcome: timeout
# limits: {"wall_time_s": 1, "max_processes": 32}
# why: the program and 3 children (TOKEN in argv) ignore SIGTERM, SIGHUP and SIGINT and sleep; the timeout kill must be SIGKILL of the whole tree, and no child (TOKEN) may be left on the host.
import os, signal, subprocess, sys, time
token = os.environ["TOKEN"]
code = "import signal, time\nfor s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT): signal.signal(s, signal.SIG_IGN)\ntime.sleep(300)"
for _ in range(3):
    subprocess.Popen([sys.executable, "-c", code, token], start_new_session=True)
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, signal.SIG_IGN)
time.sleep(60)

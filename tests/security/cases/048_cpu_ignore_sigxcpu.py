# expect-outcome: cpu_limit
# limits: {"cpu_time_s": 1, "wall_time_s": 10}
# why: ignores SIGXCPU (the soft cpu-limit signal) and keeps burning; the hard limit's SIGKILL (or the cgroup poll) must still end it as cpu_limit.
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
while True:
    pass

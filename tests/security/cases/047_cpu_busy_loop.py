# expect-outcome: cpu_limit
# limits: {"cpu_time_s": 1, "wall_time_s": 10}
# why: burns cpu past cpu_time_s with a generous wall limit; RLIMIT_CPU (SIGXCPU) or the cgroup cpu accounting must stop it as cpu_limit, not timeout.
while True:
    pass

# expect-outcome: timeout
# limits: {"wall_time_s": 1, "cpu_time_s": 30}
# why: a plain infinite loop; the supervisor's wall-clock timer must kill it at wall_time_s.
while True:
    pass

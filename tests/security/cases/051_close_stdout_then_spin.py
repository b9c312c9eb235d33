# expect-outcome: timeout
# limits: {"wall_time_s": 1, "cpu_time_s": 30}
# why: closes stdout and stderr (EOF on both pipes) and keeps running; the supervisor must not take EOF as the end and must still enforce the timeout.
import os
os.close(1)
os.close(2)
while True:
    pass

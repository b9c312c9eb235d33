# expect-outcome: timeout
# limits: {"wall_time_s": 1}
# why: sleeps past the wall-clock limit without using cpu (RLIMIT_CPU never fires); the wall timer must kill it.
import time
time.sleep(60)

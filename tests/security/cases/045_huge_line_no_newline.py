# expect-outcome: output_limit
# limits: {"output_bytes": 65536, "wall_time_s": 5}
# why: a single 64 MiB line with no newline (line-buffered collectors would hold it whole); the byte cap must apply regardless of newlines.
import os
block = b"x" * (1 << 20)
for _ in range(64):
    os.write(1, block)

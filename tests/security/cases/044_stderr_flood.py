# expect-outcome: output_limit
# limits: {"output_bytes": 65536, "wall_time_s": 5}
# why: floods stderr forever; the cap applies per stream, stderr included.
import os
line = b"E" * 1023 + b"\n"
while True:
    os.write(2, line)

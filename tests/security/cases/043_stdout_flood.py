# expect-outcome: output_limit
# limits: {"output_bytes": 65536, "wall_time_s": 5}
# why: floods stdout forever (memory of the collector); the supervisor must cap at output_bytes, kill the tree and mark it truncated.
import sys
line = "A" * 1023 + "\n"
while True:
    sys.stdout.write(line)

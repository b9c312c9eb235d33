// expect-outcome: output_limit
// limits: {"output_bytes": 65536, "wall_time_s": 10}
// why: writes stdout forever from node (synchronous writes to a pipe); the supervisor caps the collected stdout at output_bytes, kills node and says output_limit.
declare var require: any;
const fs = require("fs");
const line: string = "T".repeat(1023) + "\n";
for (;;) fs.writeSync(1, line);

// expect-outcome: output_limit
// limits: {"output_bytes": 65536, "wall_time_s": 5}
// why: writes stdout forever with unbuffered writes; the supervisor caps the collected stdout at output_bytes, kills the program and says output_limit.
package main

import (
	"os"
	"strings"
)

func main() {
	line := []byte(strings.Repeat("G", 1023) + "\n")
	for {
		os.Stdout.Write(line)
	}
}

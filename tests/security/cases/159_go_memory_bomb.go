// expect-outcome: memory_limit
// limits: {"memory_mb": 128, "wall_time_s": 10}
// why: allocates and touches memory without bound in Go's runtime (which reserves address space up front, so RLIMIT_AS cannot be tight); the memory cgroup's OOM kill (or the runtime's own "out of memory" death) stops it near memory_mb, and the outcome says memory_limit.
package main

import "fmt"

func main() {
	var blocks [][]byte
	for {
		block := make([]byte, 16<<20)
		for i := range block {
			block[i] = 1
		}
		blocks = append(blocks, block)
		if len(blocks) > 256 {
			fmt.Println("LEAKED allocated 4 GiB")
		}
	}
}

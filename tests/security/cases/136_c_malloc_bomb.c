// expect-outcome: memory_limit|ok
// forbid-stdout: LEAKED
// limits: {"memory_mb": 128, "wall_time_s": 10}
// why: mallocs and touches 16 MiB blocks without bound; the memory cgroup (OOM kill: memory_limit) or RLIMIT_DATA/AS (malloc returns NULL: the program says so and ends) stops it near memory_mb.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    for (long mib = 0;; mib += 16) {
        char* block = malloc(16 << 20);
        if (!block) {
            printf("BLOCKED malloc failed after %ld MiB\n", mib);
            return 0;
        }
        memset(block, 1, 16 << 20);
        __asm__ volatile("" : : "r"(block) : "memory");  // -O2 may not drop the touch
        if (mib > 4096) printf("LEAKED allocated over 4 GiB\n");
    }
}

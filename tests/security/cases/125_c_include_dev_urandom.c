// expect-outcome: compile_memory_limit|compile_timeout|compile_error
// compile-limits: {"memory_mb": 256, "wall_time_s": 20}
// why: `#include "/dev/urandom"` reads endless random bytes at compile time (and would spew binary diagnostics); the compile stage's limits and output cap contain it.
#include "/dev/urandom"
int main(void) { return 0; }

// expect-outcome: compile_memory_limit|compile_timeout|compile_error
// compile-limits: {"memory_mb": 256, "wall_time_s": 20}
// why: `#include "/dev/zero"` makes the preprocessor read an endless file into memory; the compile stage's memory and time limits must stop the compiler (or it refuses the file), and nothing is left running.
#include "/dev/zero"
int main() { return 0; }

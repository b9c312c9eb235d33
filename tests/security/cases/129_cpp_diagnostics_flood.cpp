// expect-outcome: compile_error|compile_timeout
// compile-limits: {"wall_time_s": 10, "cpu_time_s": 10, "output_bytes": 262144}
// why: one macro expands to 100,000 statements, each an error with its caret lines and macro notes (about 70 MB of diagnostics, longer than the limit to write); the compile stage caps what it keeps of the compiler's output and its time, and the runner checks the cap held.
#define A { int value = "not an int"; }
#define B A A A A A A A A A A
#define C B B B B B B B B B B
#define D C C C C C C C C C C
#define E D D D D D D D D D D
#define F E E E E E E E E E E
int main() { F return 0; }

// expect-outcome: compile_error
// why: `#include "/etc/shadow"` makes the compiler read a host file at compile time and quote it in its errors; the compile stage runs in the sandbox, whose /etc holds no shadow, so the include fails; the runner checks that no line of the host's shadow appears in any output.
#include "/etc/shadow"
int main(void) { return 0; }

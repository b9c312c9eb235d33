// expect-outcome: compile_error
// why: includes the runner's canary file in the host's /tmp by its absolute path (the runner writes the path in place of the placeholder below); the compiler sees the sandbox's own /tmp, so the include fails and the canary's text appears in no output.
#include "{{CANARY_PATH}}"
int main() { return 0; }

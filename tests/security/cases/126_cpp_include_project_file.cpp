// expect-outcome: compile_error
// forbid-output: cmake_minimum_required
// why: includes a file of the e2beval checkout itself by its absolute host path (the runner writes the repository's path in place of the placeholder); the sandbox's view holds no host project directory, so the compiler cannot read or quote it.
#include "{{REPO_ROOT}}/CMakeLists.txt"
int main() { return 0; }

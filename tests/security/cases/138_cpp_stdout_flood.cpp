// expect-outcome: output_limit
// limits: {"output_bytes": 65536, "wall_time_s": 5}
// why: writes stdout forever from native code (no interpreter's buffering between it and the pipe); the supervisor caps the collected output at output_bytes, kills the tree and says output_limit.
#include <cstdio>
#include <string>

int main() {
    const std::string line(1023, 'A');
    for (;;) std::printf("%s\n", line.c_str());
}

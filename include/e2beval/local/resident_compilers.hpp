// The resident compile services of this process (docs/sandbox.md, "Resident compilers"): which are live, and a
// way to end them all now (the host checks of the security corpus; tests that count what a process keeps).
#pragma once

#include <string>
#include <vector>

namespace e2beval {

struct ResidentCompilerInfo {
    std::string language;
    int pid = -1;  // the service sandbox's init (host pid)
    unsigned compiles = 0;
};

// The live services.
std::vector<ResidentCompilerInfo> resident_compilers();

// Ends every service once its compile in progress (and its pool's queued ones) are done, and waits for that:
// their processes and cgroups are gone when it returns. Later compiles start new services.
void end_resident_compilers();

}  // namespace e2beval

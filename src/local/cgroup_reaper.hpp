// The cgroup reaper of this process: a small process, started once (before the first sandbox cgroup is
// made), that outlives this one and removes its sandbox cgroups within moments of its end, whether it exits,
// calls _exit, crashes or is killed (the program is src/local/cgroup_reaper_main.cpp). Without it, the
// cgroups of an owner that ran no exit handlers stayed until a later e2beval process swept them.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace e2beval::local {

// What the reaper watches: this process's sandbox cgroups, `<parent>/<name_prefix><n>`.
struct CgroupReaperPlan {
    std::string name_prefix;           // e2beval-<pid>-<start time>-, this process's (cgroup.cpp)
    bool v2 = false;                   // v2 kills what is left with cgroup.kill
    std::vector<std::string> parents;  // where the sandbox cgroups are made
};

struct CgroupReaperState {
    pid_t pid = 0;        // the reaper's pid (it is not this process's child); 0 when none runs
    std::string why_not;  // when none runs: why (the sweep at the next e2beval start is what is left)
};

// Starts the reaper for this process unless it has one (a forked child that makes sandboxes gets its own:
// its cgroups carry its own pid), with the plan `make_plan` gives. Costs one small exec, once per process;
// later calls cost a getpid. Never throws. Thread-safe.
CgroupReaperState ensure_cgroup_reaper(const std::function<CgroupReaperPlan()>& make_plan);

}  // namespace e2beval::local

// The program's own last steps before it runs, shared by the cold path (the sandbox init's child, right
// before exec) and the warm path (the zygote's forked child, right before it runs the code): prefer the
// program as the OOM victim, set the rlimits, drop every capability and set no_new_privs, install the
// seccomp filter last, and hand its listener to the supervisor; and, on cgroup v1, join the execution's
// cgroup. One compiled copy for both paths.
#pragma once

#include <linux/filter.h>

#include <vector>

#include "local/spawn_plan.hpp"

namespace e2beval::local {

struct ProgramContainment {
    const std::vector<RlimitSetting>* rlimits = nullptr;
    sock_fprog seccomp_filter{};
    bool seccomp_reports_denials = false;
    int report_fd = -1;  // where the seccomp listener goes (when denials are reported)
};

// Child side. Must not allocate. On success the process is contained; on failure it returns the step.
StepError contain_program(const ProgramContainment& containment) noexcept;

// cgroup v1, child side, in a process of one thread: moves it into a cgroup by writing "0" (itself) into
// each hierarchy's `tasks` file, opened for it by the supervisor. The supervisor writing its pid into
// cgroup.procs instead takes the kernel's cgroup_threadgroup_rwsem for writing, which waits for an RCU
// grace period (10-15 ms after an idle moment); a thread moving itself takes no thread-group lock. Used by
// a cold sandbox before it forks the program and by each warm standby first thing. Closes nothing.
StepError join_cgroup(const int* task_files, int count) noexcept;
inline constexpr int kMaxCgroupTaskFiles = 4;  // one per v1 hierarchy: memory, pids, cpuacct, cpu

}  // namespace e2beval::local

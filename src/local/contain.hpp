// The child side of the sandbox, in order, in one function: what runs between clone and exec.
#pragma once

#include "local/spawn_plan.hpp"

namespace e2beval::local {

// The fds the parent hands to the child; each becomes a fixed number inside.
struct ChildFds {
    int stdin_read;
    int stdout_write;
    int stderr_write;
    int report_write;  // ChildReport messages to the parent
    int go_read;       // one byte from the parent once the id maps are written; EOF means "abort"
    // cgroup v1: the sandbox cgroup's `tasks` file of each hierarchy, opened by the parent, into which the
    // child moves itself (see join_cgroup in contain.cpp); none on v2 (clone3 puts it there) or without cgroups.
    const int* cgroup_tasks = nullptr;
    int cgroup_task_count = 0;
};

inline constexpr int kMaxCgroupTaskFiles = 4;  // one per v1 hierarchy: memory, pids, cpuacct, cpu

// Runs as pid 1 of the new pid namespace. Never returns.
[[noreturn]] void run_sandbox_init(const SpawnPlan& plan, const ChildFds& fds) noexcept;

}  // namespace e2beval::local

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
    // cgroup v1: the parent makes the sandbox's cgroup while the child sets up its mounts, and sends each
    // hierarchy's `tasks` file on the report channel; the child moves itself in before it starts the
    // program (see join_cgroup in contain.cpp). False on v2 (clone3 puts it there) or without cgroups.
    bool joins_cgroup = false;
};

// Runs as pid 1 of the new pid namespace. Never returns.
[[noreturn]] void run_sandbox_init(const SpawnPlan& plan, const ChildFds& fds) noexcept;

}  // namespace e2beval::local

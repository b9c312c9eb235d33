// The program's own last steps before it runs, shared by the cold path (the sandbox init's child, right
// before exec) and the warm path (the zygote's forked child, right before it runs the code): prefer the
// program as the OOM victim, set the rlimits, drop every capability and set no_new_privs, install the
// seccomp filter last, and hand its listener to the supervisor. One compiled copy for both paths.
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

}  // namespace e2beval::local

// Resource limits applied in the child right before exec: cpu, address space, file size, processes,
// open files, no core dumps. They are the fallback when no cgroup is available, and always on.
#pragma once

#include <vector>

#include "e2beval/core/types.hpp"
#include "local/spawn_plan.hpp"

namespace e2beval::local {

// Parent side: the settings for `limits` (the child's own process counts toward RLIMIT_NPROC). With a
// cgroup the real memory and pids limits are the cgroup's, and the rlimits are only backstops.
std::vector<RlimitSetting> plan_rlimits(const Limits& limits, bool cgroup);

// "RLIMIT_CPU" for RLIMIT_CPU, for error messages.
const char* rlimit_name(int resource) noexcept;

// Child side: setrlimit for each setting. Must not allocate.
StepError apply_rlimits(const std::vector<RlimitSetting>& settings) noexcept;

}  // namespace e2beval::local

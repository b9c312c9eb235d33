// What the supervisor hands the warm pool's zygote, as bytes the zygote passes on to its compiled steps
// (warm_steps.cpp) without reading them: once at start-up, the seccomp program every execution installs;
// with each execution, its workspace size and rlimits. Encoded and decoded here, on both sides, by the same
// code, so the zygote's Python never holds a layout, a limit or a filter of its own.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "local/spawn_plan.hpp"

namespace e2beval::local {

struct WarmSettings {
    std::vector<sock_filter> seccomp_filter;
    bool seccomp_reports_denials = false;
    // cgroup v1: how many `tasks` files (one per hierarchy) each of the zygote's two execution cgroups has;
    // they follow the library's fd in the settings message, the first cgroup's first. 0: the supervisor
    // moves the standbys (v2), or there are no cgroups.
    std::uint32_t cgroup_task_files = 0;
};

struct WarmSteps {
    std::uint64_t workspace_bytes = 0;
    std::vector<RlimitSetting> rlimits;
};

std::string encode_warm_settings(const WarmSettings& settings);
std::optional<WarmSettings> decode_warm_settings(std::string_view bytes);

std::string encode_warm_steps(const WarmSteps& steps);
std::optional<WarmSteps> decode_warm_steps(std::string_view bytes);

// One execution's request: its steps, and its environment ("NAME=value" each), which the zygote's child
// sets only where it differs from the zygote's own.
struct WarmRequest {
    WarmSteps steps;
    std::vector<std::string> environment;
};

std::string encode_warm_request(const WarmRequest& request);
std::optional<WarmRequest> decode_warm_request(std::string_view bytes);

// The workspace size a zygote's standby mounts ahead of its request; other sizes are a resize.
inline constexpr std::uint64_t kWarmDefaultWorkspaceBytes = 64ull << 20;  // Limits::workspace_bytes' default

}  // namespace e2beval::local

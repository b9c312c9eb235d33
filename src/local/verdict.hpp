// The rules that turn what a supervisor saw of an execution (the program's wait status or its absence, the
// reason it was killed, the cgroup's events, its stderr) into an outcome and a sentence. A pure function of
// values: unit tests call it with no process at all (tests/cpp/test_verdict.cpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/core/types.hpp"
#include "local/cgroup.hpp"
#include "local/spawn_plan.hpp"

namespace e2beval::local {

// Everything classify() reads about one execution.
struct Observation {
    Limits limits;
    Language language = Language::python;
    bool read_limit_messages = true;  // SupervisionRequest::read_limit_messages
    // What the sandbox's init (cold) or the zygote (warm) reported last: the program's wait status once it
    // ended, or why the sandbox could not be set up. Neither when it ended without a word (it was killed).
    std::optional<int> program_status;
    std::optional<std::string> setup_failure;
    // Why the supervisor killed the sandbox (timeout, cpu_limit, output_limit, seccomp_violation, cancelled).
    std::optional<Outcome> killed_for;
    CgroupUsage cgroup_usage;  // the execution's own counters (zero without a cgroup)
    std::chrono::nanoseconds cpu_time{0};
    bool stdout_truncated = false;
    std::string_view stderr_data;
    std::vector<std::string> denied_syscalls;
};

struct Verdict {
    Outcome outcome = Outcome::sandbox_error;
    std::string detail;
    int exit_code = -1;  // when the program exited
    int signal = 0;      // when it was killed by a signal (SIGKILL when the supervisor or the OOM killer killed it)
};

Verdict classify(const Observation& observed);

// "sandbox set-up failed inside the child: <call> on <path>: <error>" for a setup_failed report.
std::string describe_setup_failure(const ChildReport& report);

}  // namespace e2beval::local

// classify(): the supervisor's rules, in order of precedence (verdict.hpp).
#include "local/verdict.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>

#include "local/interpreters.hpp"

namespace e2beval::local {

namespace {

std::string seconds_text(std::chrono::milliseconds duration) {
    const double seconds = static_cast<double>(duration.count()) / 1000.0;
    char text[32];
    std::snprintf(text, sizeof text, "%g s", seconds);
    return text;
}

std::string memory_limit_text(const Limits& limits) {
    return "ran out of memory (limit " + std::to_string(limits.memory_bytes / kMiB) + " MiB)";
}

std::string denied_list(const std::vector<std::string>& denied) {
    std::string list;
    for (const auto& name : denied) list += (list.empty() ? "" : ", ") + name;
    return list;
}

Verdict verdict(Outcome outcome, std::string detail, int signal = 0) { return {outcome, std::move(detail), -1, signal}; }

// The supervisor killed the sandbox: the reason it had is the outcome.
std::optional<Verdict> killed_verdict(const Observation& observed) {
    const auto& limits = observed.limits;
    switch (*observed.killed_for) {
        case Outcome::cancelled: return verdict(Outcome::cancelled, "killed: the caller cancelled the execution", SIGKILL);
        case Outcome::timeout:
            return verdict(Outcome::timeout, "killed after the " + seconds_text(limits.wall_time) + " wall-clock limit", SIGKILL);
        case Outcome::output_limit:
            return verdict(Outcome::output_limit,
                           output_limit_detail(limits.output_bytes, observed.stdout_truncated ? "stdout" : "stderr"), SIGKILL);
        case Outcome::seccomp_violation:
            return verdict(Outcome::seccomp_violation, "killed at a denied system call: " + denied_list(observed.denied_syscalls),
                           SIGKILL);
        case Outcome::cpu_limit:
            return verdict(Outcome::cpu_limit,
                           "used more than the " + seconds_text(limits.cpu_time) + " cpu-time limit (all processes together)",
                           SIGKILL);
        default: return std::nullopt;
    }
}

// The program ended with `status`: ok, or the limit that made it fail, or its own failure.
Verdict status_verdict(const Observation& observed, int status) {
    const auto& limits = observed.limits;
    const std::string stderr_data(observed.stderr_data);
    const auto stderr_says = [&](LimitKind limit) {
        return observed.read_limit_messages && stderr_reports_limit(observed.language, limit, stderr_data);
    };
    const std::string denials =
        observed.denied_syscalls.empty() ? "" : "; denied system calls: " + denied_list(observed.denied_syscalls);
    Verdict result;
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
        if (result.exit_code == 0) {
            result.outcome = Outcome::ok;
            result.detail = denials.empty() ? "" : denials.substr(2);
            return result;
        }
    } else {
        result.signal = WTERMSIG(status);
    }
    const auto failed = [&](Outcome outcome, std::string detail) {
        result.outcome = outcome;
        result.detail = std::move(detail) + denials;
        return result;
    };
    // The program failed: name the limit that made it fail, when one did.
    if (observed.cgroup_usage.oom_kills > 0 || stderr_says(LimitKind::memory))
        return failed(Outcome::memory_limit, memory_limit_text(limits));
    if (observed.cgroup_usage.pids_limit_hits > 0 || stderr_says(LimitKind::processes))
        return failed(Outcome::pids_limit, "could not start more than " + std::to_string(limits.max_processes) + " processes");
    if (result.signal == SIGXCPU || (result.signal == SIGKILL && observed.cpu_time >= limits.cpu_time))
        return failed(Outcome::cpu_limit, "used more than the " + seconds_text(limits.cpu_time) + " cpu-time limit");
    if (result.signal == SIGXFSZ || stderr_says(LimitKind::file_size))
        return failed(Outcome::file_limit, "wrote a file larger than " + std::to_string(limits.file_size_bytes) + " bytes");
    if (result.signal == SIGSYS) return failed(Outcome::seccomp_violation, "killed by the seccomp filter");
    if (WIFSIGNALED(status))
        return failed(Outcome::signaled, "killed by signal " + std::to_string(result.signal) + " (SIG" +
                                             sigabbrev_np(result.signal) + ")");
    return failed(Outcome::exit_nonzero, "exited with status " + std::to_string(result.exit_code));
}

}  // namespace

Verdict classify(const Observation& observed) {
    if (observed.setup_failure) return verdict(Outcome::sandbox_error, *observed.setup_failure);
    if (observed.killed_for)
        if (auto killed = killed_verdict(observed)) return *killed;
    if (!observed.program_status) {
        // The sandbox's init lives in the memory cgroup with the program, so the cgroup's OOM killer may take
        // it too when the tree runs out of memory (a compiler in a 64 MiB compile stage did, in CI run O):
        // then the memory limit ended the run, not a fault of the sandbox (commit 98371a1).
        if (observed.cgroup_usage.oom_kills > 0)
            return verdict(Outcome::memory_limit,
                           memory_limit_text(observed.limits) + ": the memory cgroup's OOM killer ended the sandbox's init with it",
                           SIGKILL);
        return verdict(Outcome::sandbox_error, "the sandbox's init process ended without reporting the program's status");
    }
    return status_verdict(observed, *observed.program_status);
}

std::string describe_setup_failure(const ChildReport& report) {
    std::string where = report.path[0] ? std::string(" on ") + report.path : std::string();
    return "sandbox set-up failed inside the child: " + std::string(report.call) + where + ": " + std::strerror(report.value);
}

}  // namespace e2beval::local

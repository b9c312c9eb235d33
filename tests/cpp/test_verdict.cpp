// classify() (src/local/verdict.hpp): every rule that turns what the supervisor saw into an outcome, with no
// process at all. Each case states an observation and the outcome, detail, exit code and signal it must give.
#include <doctest/doctest.h>
#include <signal.h>

#include <string>
#include <string_view>

#include "local/verdict.hpp"

using namespace e2beval;
using namespace e2beval::local;

namespace {

int exited(int code) { return code << 8; }  // a wait status: exit(code)
int killed_by(int signal) { return signal; }  // a wait status: killed by `signal`

Observation ended_with(int status) {
    Observation observed;
    observed.limits.wall_time = std::chrono::milliseconds(2500);
    observed.limits.cpu_time = std::chrono::milliseconds(1000);
    observed.limits.memory_bytes = 64 * kMiB;
    observed.limits.max_processes = 8;
    observed.limits.file_size_bytes = 4096;
    observed.limits.output_bytes = 100;
    observed.program_status = status;
    return observed;
}

Observation killed_for(Outcome reason) {
    auto observed = ended_with(killed_by(SIGKILL));
    observed.program_status.reset();  // a killed init reports nothing
    observed.killed_for = reason;
    return observed;
}

// The outcome of a program that exited 1 after writing `stderr_data` (an interpreter's last words).
Outcome outcome_after_stderr(std::string_view stderr_data, Language language = Language::python) {
    auto observed = ended_with(exited(1));
    observed.language = language;
    observed.stderr_data = stderr_data;
    return classify(observed).outcome;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("classify: a program that exits 0 is ok, and names the calls the filter denied") {
    auto verdict = classify(ended_with(exited(0)));
    CHECK(verdict.outcome == Outcome::ok);
    CHECK(verdict.detail.empty());
    CHECK(verdict.exit_code == 0);
    CHECK(verdict.signal == 0);

    auto observed = ended_with(exited(0));
    observed.denied_syscalls = {"ptrace", "mount"};
    verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::ok);
    CHECK(verdict.detail == "denied system calls: ptrace, mount");
}

TEST_CASE("classify: a nonzero exit with no limit behind it is exit_nonzero") {
    auto observed = ended_with(exited(3));
    observed.denied_syscalls = {"socket"};
    const auto verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::exit_nonzero);
    CHECK(verdict.exit_code == 3);
    CHECK(verdict.signal == 0);
    CHECK(verdict.detail == "exited with status 3; denied system calls: socket");
}

TEST_CASE("classify: a program killed by a signal no limit explains is signaled, with the signal's name") {
    const auto verdict = classify(ended_with(killed_by(SIGSEGV)));
    CHECK(verdict.outcome == Outcome::signaled);
    CHECK(verdict.signal == SIGSEGV);
    CHECK(verdict.exit_code == -1);
    CHECK(verdict.detail == "killed by signal " + std::to_string(SIGSEGV) + " (SIGSEGV)");
    // A SIGKILL below the CPU limit is someone else's kill, not the limit's.
    auto observed = ended_with(killed_by(SIGKILL));
    observed.cpu_time = std::chrono::milliseconds(10);
    CHECK(classify(observed).outcome == Outcome::signaled);
}

TEST_CASE("classify: the supervisor's own kill names its reason, whatever the init reported") {
    struct Case {
        Outcome reason;
        std::string detail_part;
    };
    for (const auto& [reason, detail_part] : {Case{Outcome::timeout, "killed after the 2.5 s wall-clock limit"},
                                               Case{Outcome::cpu_limit, "more than the 1 s cpu-time limit (all processes together)"},
                                               Case{Outcome::cancelled, "the caller cancelled the execution"},
                                               Case{Outcome::output_limit, "stderr"}}) {
        CAPTURE(to_string(reason));
        const auto verdict = classify(killed_for(reason));
        CHECK(verdict.outcome == reason);
        CHECK(verdict.signal == SIGKILL);
        CHECK(contains(verdict.detail, detail_part));
    }
    // The output limit names the stream that overflowed, and a kill wins over a status the init reported.
    auto observed = killed_for(Outcome::output_limit);
    observed.stdout_truncated = true;
    observed.program_status = exited(0);
    auto verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::output_limit);
    CHECK(verdict.detail == output_limit_detail(100, "stdout"));
}

TEST_CASE("classify: a kill at a denied call (seccomp kill mode) lists the calls") {
    auto observed = killed_for(Outcome::seccomp_violation);
    observed.denied_syscalls = {"unshare", "bpf"};
    const auto verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::seccomp_violation);
    CHECK(verdict.detail == "killed at a denied system call: unshare, bpf");
    // Killed by the filter itself (SIGSYS), not by the supervisor.
    const auto by_filter = classify(ended_with(killed_by(SIGSYS)));
    CHECK(by_filter.outcome == Outcome::seccomp_violation);
    CHECK(by_filter.detail == "killed by the seccomp filter");
}

TEST_CASE("classify: the memory limit, from the cgroup's OOM kills or from the interpreter's own words") {
    auto observed = ended_with(killed_by(SIGKILL));
    observed.cgroup_usage.oom_kills = 1;
    auto verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::memory_limit);
    CHECK(verdict.detail == "ran out of memory (limit 64 MiB)");

    CHECK(outcome_after_stderr("Traceback (most recent call last):\nMemoryError\n") == Outcome::memory_limit);
    // A compiler's diagnostics may quote anything: not read for a limit there.
    observed = ended_with(exited(1));
    observed.stderr_data = "MemoryError\n";
    observed.read_limit_messages = false;
    CHECK(classify(observed).outcome == Outcome::exit_nonzero);
    // Another language's words are not Python's.
    CHECK(outcome_after_stderr("MemoryError\n", Language::bash) == Outcome::exit_nonzero);
}

TEST_CASE("classify: an init that ended unreported is the memory limit when the OOM killer struck, else a sandbox error") {
    // The OOM killer may take the sandbox's init with the program (commit 98371a1).
    auto observed = ended_with(0);
    observed.program_status.reset();
    observed.cgroup_usage.oom_kills = 2;
    auto verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::memory_limit);
    CHECK(verdict.signal == SIGKILL);
    CHECK(contains(verdict.detail, "the memory cgroup's OOM killer ended the sandbox's init with it"));

    observed.cgroup_usage.oom_kills = 0;
    verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::sandbox_error);
    CHECK(verdict.detail == "the sandbox's init process ended without reporting the program's status");
}

TEST_CASE("classify: the process limit, from the cgroup's pids events or the interpreter's words") {
    auto observed = ended_with(exited(1));
    observed.cgroup_usage.pids_limit_hits = 1;
    auto verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::pids_limit);
    CHECK(verdict.detail == "could not start more than 8 processes");
    CHECK(outcome_after_stderr("BlockingIOError: [Errno 11] Resource temporarily unavailable\n") == Outcome::pids_limit);
}

TEST_CASE("classify: the CPU limit, from RLIMIT_CPU's SIGXCPU or a SIGKILL at the limit") {
    auto verdict = classify(ended_with(killed_by(SIGXCPU)));
    CHECK(verdict.outcome == Outcome::cpu_limit);
    CHECK(verdict.detail == "used more than the 1 s cpu-time limit");
    auto observed = ended_with(killed_by(SIGKILL));
    observed.cpu_time = std::chrono::milliseconds(1000);
    CHECK(classify(observed).outcome == Outcome::cpu_limit);
}

TEST_CASE("classify: the file size limit, from SIGXFSZ or the interpreter's words") {
    auto verdict = classify(ended_with(killed_by(SIGXFSZ)));
    CHECK(verdict.outcome == Outcome::file_limit);
    CHECK(verdict.detail == "wrote a file larger than 4096 bytes");
    CHECK(outcome_after_stderr("OSError: [Errno 27] File too large\n") == Outcome::file_limit);
}

TEST_CASE("classify: a set-up failure is a sandbox error, before anything else") {
    auto observed = killed_for(Outcome::timeout);
    observed.setup_failure = "sandbox set-up failed inside the child: mount on /proc: Operation not permitted";
    const auto verdict = classify(observed);
    CHECK(verdict.outcome == Outcome::sandbox_error);
    CHECK(verdict.detail == *observed.setup_failure);
    ChildReport report;
    report.kind = ChildReport::setup_failed;
    report.value = EPERM;
    std::snprintf(report.call, sizeof report.call, "mount");
    std::snprintf(report.path, sizeof report.path, "/proc");
    CHECK(describe_setup_failure(report) == observed.setup_failure);
}

TEST_CASE("classify: the limits are named in order: memory before processes before CPU before file size") {
    auto observed = ended_with(killed_by(SIGXCPU));
    observed.cgroup_usage.oom_kills = 1;
    observed.cgroup_usage.pids_limit_hits = 1;
    CHECK(classify(observed).outcome == Outcome::memory_limit);
    observed.cgroup_usage.oom_kills = 0;
    CHECK(classify(observed).outcome == Outcome::pids_limit);
    observed.cgroup_usage.pids_limit_hits = 0;
    CHECK(classify(observed).outcome == Outcome::cpu_limit);
}

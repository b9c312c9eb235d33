// Building a sandbox, parent side, in order: cgroup, pipes, clone3 into new namespaces (and into the cgroup),
// id maps, go. What it returns owns everything it made: the init (killed and reaped unless handed on), the
// pipes' parent ends, the report socket and the cgroup.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "local/cgroup.hpp"
#include "local/fd.hpp"
#include "local/supervision_request.hpp"

namespace e2beval::local {

// A sandbox's init, a child of this process that nobody else waits for (no SIGCHLD). Owning it means ending
// it: the destructor kills it (its whole pid namespace goes with it) and reaps it, unless release()d.
class SandboxProcess {
public:
    SandboxProcess() = default;
    SandboxProcess(pid_t pid, UniqueFd pidfd) noexcept : pid_(pid), pidfd_(std::move(pidfd)) {}
    SandboxProcess(SandboxProcess&& other) noexcept;
    SandboxProcess& operator=(SandboxProcess&& other) noexcept;
    ~SandboxProcess() { kill_and_reap(); }

    pid_t pid() const noexcept { return pid_; }
    int pidfd() const noexcept { return pidfd_.get(); }
    explicit operator bool() const noexcept { return pid_ > 0; }
    // SIGKILL through the pidfd, then wait for it. Idempotent.
    void kill_and_reap() noexcept;
    // Hands the init to the caller, who reaps it (deferred_reap, a watcher's wait4): this object owns nothing after.
    pid_t release_pid() noexcept;
    UniqueFd release_pidfd() noexcept { return std::move(pidfd_); }

private:
    pid_t pid_ = -1;
    UniqueFd pidfd_;
};

// Declared so that the init dies before its cgroup is removed (members are destroyed last to first).
struct Spawned {
    std::shared_ptr<SandboxCgroup> cgroup;
    CgroupUsage cgroup_start;  // a reused cgroup's counters when the execution began (zero for a new one)
    UniqueFd stdout_read;
    UniqueFd stderr_read;
    UniqueFd report;
    SandboxProcess init;  // none for a warm execution: the zygote forks its program
};

// Builds the sandbox of `request`. `with_cgroup`: false for a zygote (its executions run in cgroups of their
// own). `channel_write_end`: when given, the child's stdin is a socket whose write end is returned there (a
// session's request channel) instead of a pipe prefilled with request.stdin_data. Throws e2beval::error: invalid_input (stdin too large), unsupported (the host cannot give the
// isolation asked for), sandbox_setup (a syscall failed).
Spawned spawn(SupervisionRequest& request, bool with_cgroup = true, UniqueFd* channel_write_end = nullptr);

// The execution's cgroup: limits and accounting for the whole tree, or none when the host has none (refused,
// errc::unsupported, when the caller's minimum level needs one).
std::shared_ptr<SandboxCgroup> execution_cgroup(const SupervisionRequest& request);

// Refuses (errc::invalid_input) a stdin larger than the sandbox takes.
void check_stdin_size(const std::string& data);

// A pipe holding `data`, whose read end is returned: stdin is written whole before the program starts, so the
// parent never blocks on it and never gets SIGPIPE from a program that does not read it.
UniqueFd prefilled_stdin(const std::string& data);

struct ReportChannel {
    UniqueFd parent_end;
    UniqueFd child_end;
};
// The SOCK_SEQPACKET socket pair a child reports on (child_report.hpp).
ReportChannel make_report_channel();

// A process's pid in our pid namespace, from its pidfd (cgroup.procs takes pids).
pid_t pid_of(int pidfd);

}  // namespace e2beval::local

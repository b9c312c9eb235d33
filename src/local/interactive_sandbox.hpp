// A sandbox whose program talks with its owner through its stdin and stdout (a session's agent, a resident
// compiler). The owner reads and writes the pipes itself.
#pragma once

#include <memory>

#include "local/cgroup.hpp"
#include "local/fd.hpp"
#include "local/sandbox_spawn.hpp"
#include "local/supervision_request.hpp"

namespace e2beval::local {

// Owns the sandbox: destroying it (or kill()) kills the whole sandbox, reaps its init and removes its cgroup.
class InteractiveSandbox {
public:
    InteractiveSandbox() = default;
    InteractiveSandbox(InteractiveSandbox&&) noexcept = default;
    InteractiveSandbox& operator=(InteractiveSandbox&& other) noexcept {
        kill();
        init_ = std::move(other.init_);
        cgroup = std::move(other.cgroup);
        stdin_write = std::move(other.stdin_write);
        stdout_read = std::move(other.stdout_read);
        stderr_read = std::move(other.stderr_read);
        report = std::move(other.report);
        return *this;
    }
    ~InteractiveSandbox() { kill(); }

    // Kills the whole sandbox, reaps its init and removes its cgroup. Idempotent.
    void kill() noexcept {
        init_.kill_and_reap();
        cgroup.reset();  // kills anything left in the cgroup and removes it
    }
    // The sandbox's init (-1 once killed), a child of the thread that called spawn_interactive().
    pid_t pid() const noexcept { return init_.pid(); }
    int pidfd() const noexcept { return init_.pidfd(); }  // readable once the init has exited

    std::unique_ptr<SandboxCgroup> cgroup;
    UniqueFd stdin_write;
    UniqueFd stdout_read;
    UniqueFd stderr_read;
    UniqueFd report;  // set-up failures of the child arrive here

private:
    friend InteractiveSandbox spawn_interactive(SupervisionRequest request);
    SandboxProcess init_;  // declared last: destroyed (killed) before the cgroup is removed
};

// Builds the sandbox of `request` (plan.program_* is the program to run) with a request channel for stdin.
// Throws sandbox_error when it cannot be built. The init dies with the calling thread (PDEATHSIG), so call it
// from a thread that lives as long as the sandbox should.
InteractiveSandbox spawn_interactive(SupervisionRequest request);

}  // namespace e2beval::local

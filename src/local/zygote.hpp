// A warm-pool zygote: a sandbox (same namespaces, root, identity as a cold one) whose program is the zygote
// interpreter, and the two cgroups its executions run in, in turn.
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <array>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "local/cgroup.hpp"
#include "local/fd.hpp"
#include "local/sandbox_spawn.hpp"
#include "local/supervision_request.hpp"
#include "local/warm_protocol.hpp"

namespace e2beval::local {

// Owning it keeps it alive; destroying it kills its whole pid namespace.
class Zygote {
public:
    // `init`: its sandbox's init. `execution_cgroups`: two (or none without cgroups) that its executions run
    // in, in turn.
    Zygote(SandboxProcess init, UniqueFd control, std::array<std::shared_ptr<SandboxCgroup>, 2> execution_cgroups);
    Zygote(const Zygote&) = delete;
    Zygote& operator=(const Zygote&) = delete;
    ~Zygote();

    int control() const noexcept { return control_.get(); }
    int init_pidfd() const noexcept { return init_pidfd_; }
    pid_t init_pid() const noexcept { return init_pid_; }
    bool alive() const noexcept;  // false once its init has exited
    void kill() noexcept;         // kills the zygote and everything it started
    void signal_kill() noexcept;  // sends that kill without waiting: kill() (or the destructor) reaps it
    unsigned uses = 0;

    // Start-up: `ready` once the zygote has reported it; until then its stderr explains a failed start.
    bool ready = false;
    UniqueFd startup_stderr;
    // Reads the start-up report without blocking: nothing yet (nullopt), ready (""), or why it failed.
    std::optional<std::string> read_startup_report();

    // The zygote forks the process of its next execution ahead of the request (the standby: namespaces
    // and mounts made). prepare_standby moves it into the cgroup that execution will use, in the
    // background: the other one of the two, while the current execution runs in its own. So no cgroup is
    // made, moved into or removed on a request's path (a move can block ~15 ms, see cgroup.hpp).
    void prepare_standby(UniqueFd standby_pidfd);
    // cgroup v1: the zygote's standbys move themselves (through the `tasks` files launch_zygote sends it)
    // and are reported only once inside, so prepare_standby has nothing to move.
    bool standby_moves_itself = false;
    // The cgroup the next execution runs in, with its standby in it (normally moved long before; this
    // waits otherwise); nullptr without cgroups. Throws sandbox_error when the standby could not be moved
    // there or died: the zygote cannot serve, and the execution runs cold.
    std::shared_ptr<SandboxCgroup> take_standby_cgroup();

private:
    pid_t init_pid_;   // init_'s, also once it is reaped
    int init_pidfd_;   // init_'s (open as long as this object)
    SandboxProcess init_;
    UniqueFd control_;
    std::array<std::shared_ptr<SandboxCgroup>, 2> execution_cgroups_;
    unsigned next_cgroup_ = 0;
    UniqueFd standby_pidfd_;
    std::future<std::string> standby_moved_;
    // The one thread that makes the moves, started at the first move (cgroup v2; none on v1, where standbys
    // move themselves, or without cgroups). Why a thread and not the event loop: writing a pid into
    // cgroup.procs takes the kernel's cgroup_threadgroup_rwsem for writing, which waits for an RCU grace period
    // (~15 ms here, cgroup.hpp) and has no asynchronous form; on the loop it would stall every execution the
    // loop serves. The standby cannot move itself on v2: its cgroup namespace hides the target cgroup.
    // Declared last: its destructor waits for a move in progress before standby_pidfd_ closes.
    std::optional<boost::asio::thread_pool> mover_;
};

// Starts a zygote from `request` (plan.zygote set) and sends it its settings; it is not ready yet (see
// zygote_startup.hpp to wait for that). Throws sandbox_error when it cannot be started.
std::unique_ptr<Zygote> launch_zygote(SupervisionRequest request, const WarmSettings& settings);

}  // namespace e2beval::local

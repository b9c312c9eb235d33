// Parent side of the local sandbox: clone3 into new namespaces, write the id maps, then watch the
// child with Asio (pidfd, pipes, a wall-clock timer), cap its output, kill its whole tree, classify.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/thread_pool.hpp>

#include <array>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "e2beval/core/types.hpp"
#include "local/cgroup.hpp"
#include "local/fd.hpp"
#include "local/spawn_plan.hpp"
#include "local/userns.hpp"
#include "local/warm_protocol.hpp"

namespace e2beval::local {

struct SupervisionRequest {
    SpawnPlan plan;  // finalized
    IdMapping ids;
    Limits limits;
    IsolationProfile isolation;
    Language language = Language::python;
    std::string stdin_data;
    // Whether the end of stderr may name the limit a failure ran into (stderr_reports_limit). Off for a compiler:
    // its diagnostics quote the program's text, which may say anything.
    bool read_limit_messages = true;
};

// Starts the sandbox and completes with its result. Set-up failures complete with outcome sandbox_error
// and a detail naming the syscall; the handler is always called exactly once.
void supervise(boost::asio::any_io_executor executor, SupervisionRequest request,
               boost::asio::any_completion_handler<void(ExecResult)> handler);

// A sandbox whose program talks with its owner through its stdin and stdout (a session's agent). The
// owner reads and writes the pipes itself; kill_interactive() ends the sandbox and removes its cgroup.
struct InteractiveSandbox {
    pid_t pid = -1;  // the sandbox's init, a child of the thread that called spawn_interactive()
    UniqueFd pidfd;
    UniqueFd stdin_write;
    UniqueFd stdout_read;
    UniqueFd stderr_read;
    UniqueFd report;  // set-up failures of the child arrive here
    std::unique_ptr<SandboxCgroup> cgroup;
};

// Builds the sandbox of `request` (plan.program_* is the program to run) with a request pipe for stdin.
// Throws sandbox_error when it cannot be built. The init dies with the calling thread (PDEATHSIG), so
// call it from a thread that lives as long as the sandbox should.
InteractiveSandbox spawn_interactive(SupervisionRequest request);
// Kills the whole sandbox, reaps its init and removes its cgroup. Idempotent.
void kill_interactive(InteractiveSandbox& sandbox) noexcept;

// A warm-pool zygote: a sandbox (same namespaces, root, identity as a cold one) whose program is the
// zygote interpreter. Owning it keeps it alive; destroying it kills its whole pid namespace.
class Zygote {
public:
    // `execution_cgroups`: two (or none without cgroups) that its executions run in, in turn.
    Zygote(pid_t init_pid, UniqueFd init_pidfd, UniqueFd control,
           std::array<std::shared_ptr<SandboxCgroup>, 2> execution_cgroups);
    Zygote(const Zygote&) = delete;
    Zygote& operator=(const Zygote&) = delete;
    ~Zygote();

    int control() const noexcept { return control_.get(); }
    int init_pidfd() const noexcept { return init_pidfd_.get(); }
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
    pid_t init_pid_;
    UniqueFd init_pidfd_;
    UniqueFd control_;
    bool reaped_ = false;
    std::array<std::shared_ptr<SandboxCgroup>, 2> execution_cgroups_;
    unsigned next_cgroup_ = 0;
    UniqueFd standby_pidfd_;
    std::future<std::string> standby_moved_;
    // The one thread that makes the moves (they block, so never on an event loop). Declared last: its
    // destructor waits for a move in progress before standby_pidfd_ closes.
    boost::asio::thread_pool mover_{1};
};

// Starts a zygote from `request` (plan.zygote set) and sends it its settings; it is not ready yet (see
// zygote_startup.hpp to wait for that). Throws sandbox_error when it cannot be started.
std::unique_ptr<Zygote> launch_zygote(SupervisionRequest request, const WarmSettings& settings);

// "sandbox set-up failed inside the child: <call> on <path>: <error>" for a setup_failed report.
std::string describe_setup_failure(const ChildReport& report);

// What a warm execution calls when it is done with its zygote, or when the zygote must die.
struct WarmHooks {
    std::function<void(bool healthy)> release;
    std::function<void()> kill_zygote;
    // The zygote died before it started the program (nothing of the request ran): run it again, cold.
    std::function<void(boost::asio::any_completion_handler<void(ExecResult)>)> run_cold;
    // The zygote reported the standby for its next execution (Zygote::prepare_standby).
    std::function<void(UniqueFd standby_pidfd)> prepare_standby;
    // A pidfd of the zygote's sandbox init (owned by the execution): readable once the zygote is gone.
    int zygote_pidfd = -1;
};

// Runs `request` (plan.program_source, environment, rlimits; limits, isolation, stdin) in a child of
// `zygote`, and then calls the handler exactly once (`hooks.release` before it). Returns false, leaving
// `handler` untouched, when the zygote cannot take the request (it died); throws for bad input.
bool supervise_warm(boost::asio::any_io_executor executor, Zygote& zygote, SupervisionRequest request,
                    WarmHooks hooks, boost::asio::any_completion_handler<void(ExecResult)>& handler);

}  // namespace e2beval::local

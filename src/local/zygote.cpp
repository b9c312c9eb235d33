// A warm-pool zygote's host side: its start, its standbys' cgroups, its end (zygote.hpp).
#include "local/zygote.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <vector>

#include "e2beval/core/error.hpp"
#include "local/child_report.hpp"
#include "local/fd_message.hpp"
#include "local/sandbox_spawn.hpp"
#include "local/verdict.hpp"
#include "local/warm_steps_library.hpp"

namespace e2beval::local {

Zygote::Zygote(SandboxProcess init, UniqueFd control, std::array<std::shared_ptr<SandboxCgroup>, 2> execution_cgroups)
    : init_pid_(init.pid()), init_pidfd_(init.pidfd()), init_(std::move(init)), control_(std::move(control)),
      execution_cgroups_(std::move(execution_cgroups)) {}

void Zygote::prepare_standby(UniqueFd standby_pidfd) {
    if (!execution_cgroups_[0]) return;  // no cgroups: nothing to prepare, the pidfd closes
    if (standby_moved_.valid()) standby_moved_.wait();  // one nobody took: its fd must outlive the move
    standby_pidfd_ = std::move(standby_pidfd);
    if (standby_moves_itself) {  // already in its cgroup (v1: it joined it before the zygote reported it)
        std::promise<std::string> moved;
        moved.set_value({});
        standby_moved_ = moved.get_future();
        return;
    }
    std::packaged_task<std::string()> move([cgroup = execution_cgroups_[next_cgroup_], pidfd = standby_pidfd_.get()]() -> std::string {
        try {
            cgroup->add_process(pid_of(pidfd));
        } catch (const std::exception& failure) {
            return std::string("the warm pool could not move its next execution's process into its cgroup: ") + failure.what();
        }
        // A pid names the standby until the zygote reaps it: if it is not reaped now, the pid written was its.
        if (::syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) != 0)
            return "the warm pool's next execution's process ended while it was moved into its cgroup";
        return {};
    });
    standby_moved_ = move.get_future();
    if (!mover_) mover_.emplace(1);
    boost::asio::post(*mover_, std::move(move));
}

std::shared_ptr<SandboxCgroup> Zygote::take_standby_cgroup() {
    if (!execution_cgroups_[0]) return nullptr;
    if (!standby_moved_.valid()) throw sandbox_error("the warm-pool zygote has no process ready for the next execution");
    if (auto failure = standby_moved_.get(); !failure.empty()) throw sandbox_error(failure);
    pollfd exited{standby_pidfd_.get(), POLLIN, 0};
    if (::poll(&exited, 1, 0) != 0) throw sandbox_error("the warm pool's next execution's process died before its request");
    standby_pidfd_.reset();
    auto cgroup = execution_cgroups_[next_cgroup_];
    next_cgroup_ ^= 1;
    return cgroup;
}

Zygote::~Zygote() { kill(); }

std::optional<std::string> Zygote::read_startup_report() {
    ChildReport report;
    int passed_fd = -1;
    const ssize_t n = receive_child_report(control(), report, passed_fd);
    UniqueFd standby(passed_fd);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return std::nullopt;  // not yet
    if (n == static_cast<ssize_t>(sizeof report) && report.kind == ChildReport::zygote_ready) {
        // It carries the first execution's standby.
        if (!standby && execution_cgroups_[0]) return "the warm-pool zygote started without a process for its first execution";
        prepare_standby(std::move(standby));
        ready = true;
        startup_stderr.reset();
        return std::string();
    }
    if (n == static_cast<ssize_t>(sizeof report) && report.kind == ChildReport::setup_failed)
        return "the warm-pool zygote could not start: " + describe_setup_failure(report);
    char text[2048] = {};
    ::fcntl(startup_stderr.get(), F_SETFL, O_NONBLOCK);
    const ssize_t got = startup_stderr ? ::read(startup_stderr.get(), text, sizeof text - 1) : -1;
    return "the warm-pool zygote exited during start-up" + (got > 0 ? ": " + std::string(text, static_cast<std::size_t>(got)) : std::string());
}

bool Zygote::alive() const noexcept {
    if (!init_) return false;
    pollfd exited{init_pidfd_, POLLIN, 0};
    return ::poll(&exited, 1, 0) == 0;  // a pidfd becomes readable when the process exits (0: do not wait)
}

void Zygote::signal_kill() noexcept {
    if (init_) ::syscall(SYS_pidfd_send_signal, init_pidfd_, SIGKILL, nullptr, 0);
}

void Zygote::kill() noexcept { init_.kill_and_reap(); }

std::unique_ptr<Zygote> launch_zygote(SupervisionRequest request, const WarmSettings& settings) {
    // Its executions' two cgroups (or none), made now, reused by every execution it serves.
    std::array<std::shared_ptr<SandboxCgroup>, 2> execution_cgroups{execution_cgroup(request), nullptr};
    if (execution_cgroups[0]) execution_cgroups[1] = execution_cgroup(request);
    // v1: their `tasks` files, which its standbys join themselves (no RCU grace period: cgroup.hpp).
    std::vector<UniqueFd> task_files;
    if (execution_cgroups[0] && execution_cgroups[0]->version() == CgroupSupport::Version::v1)
        for (const auto& cgroup : execution_cgroups)
            for (auto& file : cgroup->open_task_files()) task_files.push_back(std::move(file));
    Spawned spawned = spawn(request, false);
    auto zygote = std::make_unique<Zygote>(std::move(spawned.init), std::move(spawned.report), std::move(execution_cgroups));
    // Its own stdout stays unread; the zygote never writes there. Its stderr explains a failed start.
    zygote->startup_stderr = std::move(spawned.stderr_read);
    // First message: the settings, with the compiled steps the zygote loads (a sealed memfd) and the
    // execution cgroups' `tasks` files (v1).
    const UniqueFd library = sealed_memfd("e2beval-warm-steps", warm_steps_library());
    std::vector<int> fds{library.get()};
    WarmSettings sent = settings;
    if (!task_files.empty()) {
        sent.cgroup_task_files = static_cast<std::uint32_t>(task_files.size() / 2);
        for (const auto& file : task_files) fds.push_back(file.get());
        zygote->standby_moves_itself = true;
    }
    if (!send_with_fds(zygote->control(), encode_warm_settings(sent), fds))
        throw sandbox_error(describe_syscall_failure("sendmsg(zygote settings)", errno));
    return zygote;
}

}  // namespace e2beval::local

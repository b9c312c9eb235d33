// A cold execution's watcher (cold_watch.hpp).
#include "local/cold_watch.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "local/child_report.hpp"
#include "local/deferred_reap.hpp"

namespace e2beval::local {

namespace asio = boost::asio;

ColdWatch::ColdWatch(asio::any_io_executor executor, const SupervisionRequest& request, Spawned spawned)
    : ExecutionWatch(executor, request, spawned), pidfd_(executor) {
    pidfd_.assign(spawned.init.pidfd());  // may throw: until it did not, `spawned` still owns the init
    pid_ = spawned.init.release_pid();
    (void)spawned.init.release_pidfd().release();  // pidfd_ owns it now
}

ColdWatch::~ColdWatch() {
    // Abandoned before the end (its executor stopped): the sandbox must not outlive us.
    if (state_ == State::running) {
        ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGKILL, nullptr, 0);
        int status = 0;
        while (::wait4(pid_, &status, __WALL, nullptr) < 0 && errno == EINTR) {
        }
    } else if (state_ == State::ended_alone) {
        reap_after_result(pid_, std::move(cgroup_));
    }
}

void ColdWatch::watch_program() {
    pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                      [self = shared_from_this()](boost::system::error_code) { static_cast<ColdWatch&>(*self).on_exit(); });
}

void ColdWatch::kill_program() { ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGKILL, nullptr, 0); }

// The init reported the program's end with nothing else left in the sandbox (no process of the program's can
// run, write or allocate any more).
bool ColdWatch::ended_by_report() {
    if (state_ != State::running || killed_for_ || !last_report_ || last_report_->kind != ChildReport::program_ended ||
        last_report_->namespace_empty == 0)
        return false;
    state_ = State::ended_alone;
    stop_clock();
    take_usage_from(*last_report_);
    boost::system::error_code ignored;
    pidfd_.cancel(ignored);  // its wait would hold the caller's loop until the init is gone
    maybe_finish();
    return true;
}

void ColdWatch::on_exit() {
    if (state_ != State::running) return;  // the program ended alone: deferred_reap waits for the init
    int status = 0;
    struct rusage usage {};
    pid_t waited;
    while ((waited = ::wait4(pid_, &status, __WALL | WNOHANG, &usage)) < 0 && errno == EINTR) {
    }
    if (waited == 0) return watch_program();  // spurious readiness: wait again
    state_ = State::reaped;
    stop_clock();
    take_usage_from(program_ended_report(status, usage));
    maybe_finish();
}

void ColdWatch::maybe_finish() {
    if (state_ == State::running || state_ == State::finished || outputs_open()) return;
    const bool init_exiting = state_ == State::ended_alone;
    state_ = State::finished;
    collect_result(false);
    // The cgroup goes (removed) now, or with the exiting init, which deferred_reap kills, reaps and removes.
    if (init_exiting) reap_after_result(pid_, std::move(cgroup_));
    cgroup_.reset();
    complete();
}

}  // namespace e2beval::local

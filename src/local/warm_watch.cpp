// A warm execution's watcher (warm_watch.hpp).
#include "local/warm_watch.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "local/child_report.hpp"

namespace e2beval::local {

namespace asio = boost::asio;

WarmWatch::WarmWatch(asio::any_io_executor executor, const SupervisionRequest& request, Spawned spawned, WarmHooks hooks)
    : ExecutionWatch(executor, request, spawned), hooks_(std::move(hooks)), pidfd_(executor), zygote_exit_(executor) {
    if (hooks_.zygote_pidfd >= 0) zygote_exit_.assign(std::exchange(hooks_.zygote_pidfd, -1));
}

WarmWatch::~WarmWatch() {
    if (state_ == State::finished || state_ == State::ran_cold) return;
    // Abandoned before the end (its executor stopped): the program must not outlive us, and a zygote whose
    // execution was not seen to its end serves no other.
    if (state_ != State::ended) {
        if (pidfd_.is_open()) ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGKILL, nullptr, 0);
        else if (hooks_.kill_zygote) hooks_.kill_zygote();
    }
    release_zygote(false);
}

void WarmWatch::release_zygote(bool healthy) {
    if (auto release = std::exchange(hooks_.release, nullptr)) release(healthy);
}

// The zygote's end (its init's pidfd becomes readable when it exits).
void WarmWatch::watch_program() {
    if (!zygote_exit_.is_open()) return;
    zygote_exit_.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
        auto& watch = static_cast<WarmWatch&>(*self);
        if (ec || !watch.zygote_exit_.is_open()) return;
        if (!readable_now(watch.zygote_exit_.native_handle())) return watch.watch_program();  // not its end
        watch.on_zygote_exit();
    });
}

void WarmWatch::kill_program() {
    // The zygote reports the program's pidfd before the program runs, but we may not have read it.
    if (!pidfd_.is_open()) drain_reports();
    if (program_over()) return;
    if (pidfd_.is_open()) {
        ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGKILL, nullptr, 0);
    } else if (hooks_.kill_zygote) {
        // The zygote never handed over the program: it is broken, and goes with everything in it.
        zygote_healthy_ = false;
        hooks_.kill_zygote();
    }
}

// The program runs (it was in its cgroup before the request was sent); its pidfd lets us kill it.
void WarmWatch::on_program_started(UniqueFd pidfd) {
    program_started_ = true;
    if (state_ == State::sent) state_ = State::running;
    pidfd_.assign(pidfd.release());
}

// The zygote forked the process for its next execution: it goes into its cgroup now.
void WarmWatch::on_standby_ready(UniqueFd pidfd) {
    standby_reported_ = true;
    if (hooks_.prepare_standby) hooks_.prepare_standby(std::move(pidfd));
}

void WarmWatch::on_reports_closed() {
    if (!program_over()) on_end();
}

// The zygote died. What we sent it may be stuck in its socket, so no end-of-file will come: before the
// program started, run the request cold; after, finish with what we have.
void WarmWatch::on_zygote_exit() {
    if (program_over()) return;
    drain_reports();  // a program that started has run: it is never run again, cold
    if (program_over()) return;
    zygote_healthy_ = false;
    on_end();
    stdout_.close();  // the zygote's copies may never close: what the program wrote is read
    stderr_.close();
}

// The zygote closed the report channel after reporting the program's end (or died).
void WarmWatch::on_end() {
    state_ = State::ended;
    stop_clock();
    const auto reported = last_report_ ? last_report_->kind : 0;
    if (reported == ChildReport::program_ended) take_usage_from(*last_report_);
    else zygote_healthy_ = false;  // it failed to set the program up, or it died
    // With cgroups, the next execution needs the process the zygote prepares while this one runs.
    if (cgroup_ && hooks_.prepare_standby && !standby_reported_) zygote_healthy_ = false;
    maybe_finish();
}

void WarmWatch::maybe_finish() {
    if (state_ != State::ended || outputs_open()) return;
    const bool setup_failed = last_report_ && last_report_->kind == ChildReport::setup_failed;
    // The zygote was gone before it forked the program: nothing ran, so run it cold instead.
    if (!program_started_ && !killed_for_ && !setup_failed && hooks_.run_cold) return run_cold();
    state_ = State::finished;
    zygote_exit_.close();  // an idle zygote lives on: waiting for its end would keep the loop running
    collect_result(true);
    cgroup_.reset();  // the zygote's, reused by its next execution
    release_zygote(zygote_healthy_);
    complete();
}

void WarmWatch::run_cold() {
    state_ = State::ran_cold;
    zygote_exit_.close();
    close_streams();
    cgroup_.reset();
    release_zygote(false);
    hooks_.run_cold(take_handler());
}

}  // namespace e2beval::local

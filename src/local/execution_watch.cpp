// The watching both kinds of execution share (execution_watch.hpp).
#include "local/execution_watch.hpp"

#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>

#include "local/child_report.hpp"
#include "local/seccomp.hpp"
#include "local/verdict.hpp"
#include "local/workspace_files.hpp"

namespace e2beval::local {

namespace asio = boost::asio;

namespace {
constexpr auto kCpuPollInterval = std::chrono::milliseconds(100);
}

ExecutionWatch::ExecutionWatch(asio::any_io_executor executor, const SupervisionRequest& request, Spawned& spawned)
    : executor_(executor),
      limits_(request.limits),
      isolation_(request.isolation),
      language_(request.language),
      read_limit_messages_(request.read_limit_messages),
      stdout_(executor, spawned.stdout_read.release()),
      stderr_(executor, spawned.stderr_read.release()),
      report_(executor, spawned.report.release()),
      listener_(executor),
      timer_(executor),
      cpu_timer_(executor),
      cgroup_(std::move(spawned.cgroup)),
      cgroup_start_(spawned.cgroup_start),
      started_(std::chrono::steady_clock::now()) {}

void ExecutionWatch::start(SupervisionHandler handler) {
    // swap, not move assignment: Boost 1.81's any_completion_handler::operator=(&&) copies from an lvalue, which
    // wraps the handler in itself without end.
    handler_.swap(handler);
    // The caller's cancellation (asio::bind_cancellation_slot) kills the sandbox like a limit would.
    if (auto slot = asio::get_associated_cancellation_slot(handler_); slot.is_connected())
        slot.assign([weak = weak_from_this(), executor = executor_](asio::cancellation_type type) {
            if (type == asio::cancellation_type::none) return;
            asio::post(executor, [weak] {
                if (auto self = weak.lock()) self->kill_for(Outcome::cancelled);
            });
        });
    timer_.expires_after(limits_.wall_time);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (!ec) self->kill_for(Outcome::timeout);
    });
    if (cgroup_) poll_cpu();
    watch_program();
    read_output(stdout_, result_.stdout_data, result_.stdout_truncated, stdout_open_);
    read_output(stderr_, result_.stderr_data, result_.stderr_truncated, stderr_open_);
    read_reports();
}

// A readiness completion is only a hint here, never a fact: asio's epoll reactor does not remove a descriptor it
// closes from the epoll set (closing does that) — but the kernel keeps the entry while another descriptor refers
// to the same open file: the zygote's own pidfd, of which the warm watcher's is a dup, or the copy of every
// descriptor a sandbox this process clones holds until it closes them. The stale entry's wake-ups then reach
// whichever descriptor reuses its bookkeeping. So every handler checks the descriptor itself (a non-blocking
// read, wait4 WNOHANG, a poll) before it believes an end or a request.
bool ExecutionWatch::readable_now(int fd) {
    pollfd state{fd, POLLIN, 0};
    return ::poll(&state, 1, 0) > 0 && (state.revents & (POLLIN | POLLHUP | POLLERR));
}

void ExecutionWatch::read_output(asio::posix::stream_descriptor& stream, std::string& sink, bool& truncated, bool& open) {
    stream.async_read_some(asio::buffer(buffer_for(&stream)), [self = shared_from_this(), &stream, &sink, &truncated,
                                                               &open](boost::system::error_code ec, std::size_t n) {
        if (ec) {
            open = false;
            self->maybe_finish();
            return;
        }
        const auto room = self->limits_.output_bytes > sink.size() ? self->limits_.output_bytes - sink.size() : 0;
        sink.append(self->buffer_for(&stream).data(), std::min<std::size_t>(n, room));
        if (n > room) {
            truncated = true;
            self->kill_for(Outcome::output_limit);
        }
        self->read_output(stream, sink, truncated, open);
    });
}

// Reports arrive while the program runs (the seccomp listener, warm: its start) and when it ends (its status).
void ExecutionWatch::read_reports() {
    report_.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
        if (ec) return;
        const bool open = self->drain_reports();
        if (self->ended_by_report()) return;
        if (open) self->read_reports();
    });
}

bool ExecutionWatch::drain_reports() {
    for (;;) {
        ChildReport report;
        int passed_fd = -1;
        const ssize_t n = receive_child_report(report_.native_handle(), report, passed_fd);
        UniqueFd passed(passed_fd);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno == EAGAIN;
        if (n == 0) {
            on_reports_closed();
            return false;
        }
        if (n != static_cast<ssize_t>(sizeof report)) continue;
        switch (report.kind) {
            case ChildReport::program_started:
                if (passed) on_program_started(std::move(passed));
                continue;
            case ChildReport::standby_ready:
                if (passed) on_standby_ready(std::move(passed));
                continue;
            case ChildReport::seccomp_listener:
                if (passed) {
                    listener_.assign(passed.release());
                    answer_denials();
                }
                continue;
            case ChildReport::artifact:
                report.path[sizeof report.path - 1] = '\0';
                if (passed && collected_fds_.size() < static_cast<std::size_t>(kMaxCollectedFiles))
                    collected_fds_.emplace_back(std::string(report.path), std::move(passed));
                continue;
            default:
                // A step that failed before the program was exec'd stays the verdict, even when the process that
                // reaped the failed one reports its end (exit 127) after it.
                if (report.kind == ChildReport::setup_failed && !setup_failure_) setup_failure_ = describe_setup_failure(report);
                last_report_ = report;  // no other report carries an fd: `passed` closes
        }
    }
}

// Every call the filter denies waits for our answer: EPERM (deny mode) after recording it, or a kill.
void ExecutionWatch::answer_denials() {
    listener_.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
        if (ec || !self->listener_.is_open()) return;
        // SECCOMP_IOCTL_NOTIF_RECV blocks until a call comes: on a stale wake-up it would hang this thread.
        if (!readable_now(self->listener_.native_handle())) return self->answer_denials();
        seccomp_notif request{};
        if (::ioctl(self->listener_.native_handle(), SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) {
            // ENOENT: the caller died before we received its call. POLLHUP: nobody uses the filter any more,
            // so no call can come: stop listening (re-arming would spin).
            pollfd state{self->listener_.native_handle(), POLLIN, 0};
            if (::poll(&state, 1, 0) > 0 && (state.revents & POLLHUP)) return;
            if (errno == EINTR || errno == ENOENT) return self->answer_denials();
            return;
        }
        const auto name = syscall_name(request.data.arch, request.data.nr);
        auto& denied = self->result_.denied_syscalls;
        if (std::find(denied.begin(), denied.end(), name) == denied.end()) denied.push_back(name);
        if (self->isolation_.seccomp == SeccompMode::kill) return self->kill_for(Outcome::seccomp_violation);
        seccomp_notif_resp response{};
        response.id = request.id;
        response.error = -EPERM;
        ::ioctl(self->listener_.native_handle(), SECCOMP_IOCTL_NOTIF_SEND, &response);
        self->answer_denials();
    });
}

// cpu time of the whole tree (not only per process, as RLIMIT_CPU sees it).
void ExecutionWatch::poll_cpu() {
    cpu_timer_.expires_after(kCpuPollInterval);
    cpu_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec || self->program_over()) return;
        const auto cpu = self->cgroup_->usage_since(self->cgroup_start_).cpu_time;
        if (cpu && *cpu > self->limits_.cpu_time) return self->kill_for(Outcome::cpu_limit);
        self->poll_cpu();
    });
}

void ExecutionWatch::kill_for(Outcome reason) {
    if (program_over() || killed_for_) return;
    killed_for_ = reason;
    kill_program();
}

void ExecutionWatch::stop_clock() {
    result_.wall_time = std::chrono::steady_clock::now() - started_;
    timer_.cancel();
    cpu_timer_.cancel();
}

void ExecutionWatch::close_streams() {
    timer_.cancel();
    cpu_timer_.cancel();
    stdout_.close();
    stderr_.close();
    report_.close();
    listener_.close();
}

void ExecutionWatch::take_usage_from(const ChildReport& ended) {
    if (ended.cpu_us >= 0) result_.cpu_time = std::chrono::microseconds(ended.cpu_us);
    if (ended.peak_rss_kib > 0) result_.peak_memory_bytes = static_cast<std::uint64_t>(ended.peak_rss_kib) * 1024u;
}

void ExecutionWatch::collect_result(bool warm) {
    drain_reports();
    report_.close();
    listener_.close();
    // The files the init passed (ExecRequest::collect), read now that nothing in the sandbox can change them.
    result_.collected = read_collected_files(collected_fds_, limits_.workspace_bytes);
    if (cgroup_) {
        cgroup_usage_ = cgroup_->usage_since(cgroup_start_);
        // The cgroup sees the whole tree, also processes killed before anyone reaped them.
        if (cgroup_usage_.cpu_time) result_.cpu_time = *cgroup_usage_.cpu_time;
        // A warm program was forked from the zygote, so the pages it shares with the zygote are not charged to
        // its cgroup: its own peak RSS (from the zygote's wait4) is the better figure.
        if (cgroup_usage_.peak_memory_bytes && !(warm && result_.peak_memory_bytes))
            result_.peak_memory_bytes = cgroup_usage_.peak_memory_bytes;
        result_.cgroup_version = std::string(to_string(cgroup_->version()));
    } else {
        result_.cgroup_version = "none";
    }
    result_.isolation_level = result_.cgroup_version == "none" ? "standard" : "full";
    result_.warm = warm;

    Observation observed;
    observed.limits = limits_;
    observed.language = language_;
    observed.read_limit_messages = read_limit_messages_;
    if (last_report_ && last_report_->kind == ChildReport::program_ended) observed.program_status = last_report_->value;
    observed.setup_failure = setup_failure_;
    observed.killed_for = killed_for_;
    observed.cgroup_usage = cgroup_usage_;
    observed.cpu_time = result_.cpu_time;
    observed.stdout_truncated = result_.stdout_truncated;
    observed.stderr_data = result_.stderr_data;
    observed.denied_syscalls = result_.denied_syscalls;
    auto verdict = classify(observed);
    result_.outcome = verdict.outcome;
    result_.detail = std::move(verdict.detail);
    if (verdict.exit_code >= 0) result_.exit_code = verdict.exit_code;
    if (verdict.signal != 0) result_.signal = verdict.signal;
}

void ExecutionWatch::complete() {
    asio::get_associated_cancellation_slot(handler_).clear();  // nothing left to cancel
    asio::post(executor_, [handler = std::move(handler_), result = std::move(result_)]() mutable {
        std::move(handler)(boost::system::error_code(), std::move(result));
    });
}

}  // namespace e2beval::local

// Parent side of the local sandbox, in order: cgroup, pipes, clone3 into new namespaces (and into the
// cgroup), id maps, go; then an Asio operation that waits on the pidfd, the output pipes, the report
// socket and the seccomp listener under a wall-clock timer, kills the whole tree (pid namespace init)
// on timeout, overflow or (in kill mode) a denied call, and turns what it saw into an ExecResult.
#include "local/supervisor.hpp"

#include <fcntl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>

#include "e2beval/core/error.hpp"
#include "local/cgroup.hpp"
#include "local/child_report.hpp"
#include "local/contain.hpp"
#include "local/deferred_reap.hpp"
#include "local/fd.hpp"
#include "local/fd_message.hpp"
#include "local/interpreters.hpp"
#include "local/program_steps.hpp"
#include "local/seccomp.hpp"
#include "local/warm_protocol.hpp"
#include "local/warm_steps_library.hpp"
#include "local/workspace_files.hpp"

namespace e2beval::local {

namespace asio = boost::asio;

namespace {

constexpr auto kCpuPollInterval = std::chrono::milliseconds(100);

void write_all(int fd, const std::string& data, const char* call) {
    std::size_t written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw sandbox_error(describe_syscall_failure(call, errno));
        written += static_cast<std::size_t>(n);
    }
}

// Stdin is written whole before the child starts, so the parent never blocks on it and never gets
// SIGPIPE from a program that does not read it.
UniqueFd prefilled_stdin(const std::string& data) {
    Pipe pipe = make_stdio_pipe();
    if (data.empty()) return std::move(pipe.read_end);
    if (data.size() > 64 * 1024 &&
        ::fcntl(pipe.write_end.get(), F_SETPIPE_SZ, static_cast<int>(std::min<std::size_t>(data.size(), 1 << 20))) < 0)
        throw sandbox_error(describe_syscall_failure("fcntl(F_SETPIPE_SZ, " + std::to_string(data.size()) + ")", errno),
                            errc::invalid_input);
    write_all(pipe.write_end.get(), data, "write(stdin pipe)");
    return std::move(pipe.read_end);
}

struct ReportChannel {
    UniqueFd parent_end;
    UniqueFd child_end;
};

ReportChannel make_report_channel() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        throw sandbox_error(describe_syscall_failure("socketpair(AF_UNIX, SOCK_SEQPACKET)", errno));
    return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

struct Spawned {
    pid_t pid = -1;
    UniqueFd pidfd;
    UniqueFd stdout_read;
    UniqueFd stderr_read;
    UniqueFd report;
    std::shared_ptr<SandboxCgroup> cgroup;
    CgroupUsage cgroup_start;  // a reused cgroup's counters when the execution began (zero for a new one)
};

// A process's pid in our pid namespace, from its pidfd (cgroup.procs takes pids).
pid_t pid_of(int pidfd) {
    std::ifstream info("/proc/self/fdinfo/" + std::to_string(pidfd));
    for (std::string line; std::getline(info, line);)
        if (line.rfind("Pid:", 0) == 0) return static_cast<pid_t>(std::stol(line.substr(4)));
    throw sandbox_error("cannot read a process's pid from its pidfd");
}

void kill_and_reap(pid_t pid, int pidfd) noexcept {
    ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    int status = 0;
    while (::wait4(pid, &status, __WALL, nullptr) < 0 && errno == EINTR) {
    }
}

std::uint64_t namespace_flags(const IsolationProfile& isolation) {
    std::uint64_t flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
    if (!isolation.network) flags |= CLONE_NEWNET;
    return flags;
}

void check_stdin_size(const std::string& data) {
    if (data.size() > (1u << 20))
        throw sandbox_error("stdin for the sandbox is larger than 1 MiB; pass the data as a file instead",
                            errc::invalid_input);
}

// The execution's cgroup: limits and accounting for the whole tree, or none when the host has none
// (refused when the caller's minimum level needs one).
std::shared_ptr<SandboxCgroup> execution_cgroup(const SupervisionRequest& request) {
    auto made = SandboxCgroup::create(request.limits);
    auto cgroup = made ? std::make_shared<SandboxCgroup>(std::move(*made)) : nullptr;
    if (!cgroup && request.isolation.minimum_level == IsolationLevel::full) {
        std::string why;
        for (const auto& note : cgroup_support().notes) why += (why.empty() ? "" : "; ") + note;
        throw sandbox_error("isolation level 'full' needs cgroup limits, which this host does not offer (" + why +
                                "); " + cgroup_support().fix + ", or accept level 'standard' (rlimits only)",
                            errc::unsupported);
    }
    return cgroup;
}

// `interactive_stdin`: when given, the child's stdin is a pipe whose write end is returned there (a
// session's request channel) instead of a pipe prefilled with request.stdin_data.
Spawned spawn(SupervisionRequest& request, bool with_cgroup = true, UniqueFd* interactive_stdin = nullptr) {
    check_stdin_size(request.stdin_data);
    // 1. cgroup (a zygote has none: its executions run in cgroups of their own). On v1 it is made after
    //    clone3, while the child sets up its mounts, and the child moves itself in (step 5).
    const bool child_joins_cgroup = with_cgroup && cgroup_support().version == CgroupSupport::Version::v1;
    std::shared_ptr<SandboxCgroup> cgroup = with_cgroup && !child_joins_cgroup ? execution_cgroup(request) : nullptr;
    // 2. pipes and the report socket.
    UniqueFd stdin_read;
    if (interactive_stdin) {
        // A socket rather than a pipe: the owner writes with MSG_NOSIGNAL, so a session whose sandbox has
        // died gives EPIPE instead of killing the host process with SIGPIPE.
        int ends[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
            throw sandbox_error(describe_syscall_failure("socketpair(AF_UNIX, SOCK_STREAM)", errno));
        stdin_read = UniqueFd(ends[0]);
        *interactive_stdin = UniqueFd(ends[1]);
        ::shutdown(ends[0], SHUT_WR);
        ::shutdown(ends[1], SHUT_RD);
    } else {
        stdin_read = prefilled_stdin(request.stdin_data);
    }
    Pipe out = make_stdio_pipe(), err = make_stdio_pipe(), go = make_pipe();
    ReportChannel report = make_report_channel();

    // 3. clone3 into new namespaces (and straight into the v2 cgroup).
    int pidfd = -1;
    clone_args args{};
    args.flags = namespace_flags(request.isolation) | CLONE_PIDFD;
    args.pidfd = reinterpret_cast<std::uint64_t>(&pidfd);
    args.exit_signal = 0;  // no SIGCHLD: host code that reaps "any child" cannot steal ours
    if (cgroup && cgroup->directory_fd() >= 0) {
        args.flags |= CLONE_INTO_CGROUP;
        args.cgroup = static_cast<std::uint64_t>(cgroup->directory_fd());
    }
    long pid;
    {
        const NamespaceCreatorIdentity creator(request.ids);
        pid = ::syscall(SYS_clone3, &args, sizeof args);
        // The child never leaves this scope: the creator identity is the parent thread's to restore.
        if (pid == 0)
            run_sandbox_init(request.plan, ChildFds{stdin_read.get(), out.write_end.get(), err.write_end.get(),
                                                    report.child_end.get(), go.read_end.get(), child_joins_cgroup});
    }
    if (pid < 0) {
        const int saved = errno;
        throw sandbox_error(
            describe_syscall_failure("clone3(CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNS|CLONE_NEWNET|CLONE_NEWIPC|"
                                     "CLONE_NEWUTS|CLONE_NEWCGROUP)", saved) +
                "; run `e2beval doctor` to see what this host allows",
            saved == EPERM || saved == ENOSPC || saved == EINVAL ? errc::unsupported : errc::sandbox_setup);
    }
    Spawned spawned{static_cast<pid_t>(pid), UniqueFd(pidfd), std::move(out.read_end), std::move(err.read_end),
                    std::move(report.parent_end), std::move(cgroup), CgroupUsage{}};
    // 4. parent: id maps, then let the child go on (on v1 it joins its cgroup first).
    try {
        write_id_maps(spawned.pid, request.ids);
    } catch (...) {
        kill_and_reap(spawned.pid, spawned.pidfd.get());
        throw;
    }
    if (::write(go.write_end.get(), "1", 1) != 1) {
        const int saved = errno;
        kill_and_reap(spawned.pid, spawned.pidfd.get());
        throw sandbox_error(describe_syscall_failure("write(go pipe)", saved));
    }
    // 5. v1: the cgroup, made while the child mounts; it moves itself in through these `tasks` files
    //    before it starts the program (contain.cpp, join_cgroup).
    if (child_joins_cgroup) {
        try {
            spawned.cgroup = execution_cgroup(request);
            const auto task_files = spawned.cgroup ? spawned.cgroup->open_task_files() : std::vector<UniqueFd>();
            if (task_files.empty() || task_files.size() > static_cast<std::size_t>(kMaxCgroupTaskFiles))
                throw sandbox_error("the sandbox's cgroup has no v1 hierarchy its child can join");
            std::vector<int> fds;
            for (const auto& file : task_files) fds.push_back(file.get());
            if (!send_with_fds(spawned.report.get(), "c", fds))
                throw sandbox_error(describe_syscall_failure("sendmsg(the sandbox cgroup's tasks files)", errno));
        } catch (...) {
            kill_and_reap(spawned.pid, spawned.pidfd.get());
            throw;
        }
    }
    return spawned;
}

}  // namespace

std::string describe_setup_failure(const ChildReport& report) {
    std::string where = report.path[0] ? std::string(" on ") + report.path : std::string();
    return "sandbox set-up failed inside the child: " + std::string(report.call) + where + ": " +
           std::strerror(report.value);
}

namespace {

std::string seconds_text(std::chrono::milliseconds duration) {
    const double seconds = static_cast<double>(duration.count()) / 1000.0;
    char text[32];
    std::snprintf(text, sizeof text, "%g s", seconds);
    return text;
}

// Watches one execution. Cold: the sandbox's init is our child (pidfd, wait4, its report). Warm: the
// program was forked by a zygote; its pidfd and end arrive as reports, and the end of the report channel
// means the program and its keeper are gone.
class Supervision : public std::enable_shared_from_this<Supervision> {
public:
    Supervision(asio::any_io_executor executor, SupervisionRequest& request, Spawned spawned,
                asio::any_completion_handler<void(ExecResult)> handler, WarmHooks warm = {})
        : limits_(request.limits),
          isolation_(request.isolation),
          language_(request.language),
          read_limit_messages_(request.read_limit_messages),
          pid_(spawned.pid),
          pidfd_(executor),
          stdout_(executor, spawned.stdout_read.release()),
          stderr_(executor, spawned.stderr_read.release()),
          report_(executor, spawned.report.release()),
          listener_(executor),
          zygote_exit_(executor),
          timer_(executor),
          cpu_timer_(executor),
          cgroup_(std::move(spawned.cgroup)),
          cgroup_start_(spawned.cgroup_start),
          handler_(std::move(handler)),
          warm_(std::move(warm)),
          started_(std::chrono::steady_clock::now()) {
        if (spawned.pidfd) pidfd_.assign(spawned.pidfd.release());
        if (warm_.zygote_pidfd >= 0) zygote_exit_.assign(std::exchange(warm_.zygote_pidfd, -1));
    }

    ~Supervision() {
        // Abandoned before the end (its executor stopped): the sandbox must not outlive us.
        if (reaped_) return;
        if (!warm()) {
            kill_and_reap(pid_, pidfd_.native_handle());
            return;
        }
        if (pidfd_.is_open()) ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGKILL, nullptr, 0);
        else if (warm_.kill_zygote) warm_.kill_zygote();
        if (warm_.release) warm_.release(false);
    }

    void start() {
        // The caller's cancellation (asio::bind_cancellation_slot) kills the sandbox like a limit would.
        if (auto slot = asio::get_associated_cancellation_slot(handler_); slot.is_connected())
            slot.assign([weak = weak_from_this(), executor = pidfd_.get_executor()](asio::cancellation_type type) {
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
        if (!warm())
            pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                              [self = shared_from_this()](boost::system::error_code) { self->on_exit(); });
        watch_zygote();
        read_output(stdout_, result_.stdout_data, result_.stdout_truncated, stdout_open_);
        read_output(stderr_, result_.stderr_data, result_.stderr_truncated, stderr_open_);
        read_reports();
    }

private:
    // A readiness completion is only a hint here, never a fact: asio's epoll reactor does not remove a
    // descriptor it closes from the epoll set (closing does that) — but the kernel keeps the entry while
    // another descriptor refers to the same open file: the zygote's own pidfd, of which zygote_exit_ is a
    // dup, or the copy of every descriptor a sandbox this process clones holds until it closes them. The
    // stale entry's wake-ups then reach whichever descriptor reuses its bookkeeping. So every handler
    // below checks the descriptor itself (a non-blocking read, wait4 WNOHANG, a poll) before it believes an
    // end or a request.
    static bool readable_now(int fd) {
        pollfd state{fd, POLLIN, 0};
        return ::poll(&state, 1, 0) > 0 && (state.revents & (POLLIN | POLLHUP | POLLERR));
    }

    // Warm: the zygote's end (its init's pidfd becomes readable when it exits).
    void watch_zygote() {
        if (!zygote_exit_.is_open()) return;
        zygote_exit_.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
            if (ec || !self->zygote_exit_.is_open()) return;
            if (!readable_now(self->zygote_exit_.native_handle())) return self->watch_zygote();  // not its end
            self->on_zygote_exit();
        });
    }

    void read_output(asio::posix::stream_descriptor& stream, std::string& sink, bool& truncated, bool& open) {
        stream.async_read_some(
            asio::buffer(buffer_for(&stream)),
            [self = shared_from_this(), &stream, &sink, &truncated, &open](boost::system::error_code ec,
                                                                           std::size_t n) {
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

    std::array<char, 65536>& buffer_for(const asio::posix::stream_descriptor* stream) {
        return stream == &stdout_ ? stdout_buffer_ : stderr_buffer_;
    }

    // Reports arrive while the program runs (the seccomp listener) and when it ends (its status).
    void read_reports() {
        report_.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
            if (ec) return;
            const bool open = self->drain_reports();
            if (self->program_ended_alone()) return self->on_program_ended_alone();
            if (open) self->read_reports();
        });
    }

    // Returns false once the channel is closed.
    bool drain_reports() {
        for (;;) {
            ChildReport report;
            int passed_fd = -1;
            const ssize_t n = receive_child_report(report_.native_handle(), report, passed_fd);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return errno == EAGAIN;
            if (n == 0) {
                if (warm() && !reaped_) on_warm_end();
                return false;
            }
            if (n != static_cast<ssize_t>(sizeof report)) {
                if (passed_fd >= 0) ::close(passed_fd);
                continue;
            }
            if (report.kind == ChildReport::program_started) {
                if (passed_fd >= 0) on_warm_start(passed_fd);
                continue;
            }
            if (report.kind == ChildReport::standby_ready) {
                // The zygote forked the process for its next execution: it goes into its cgroup now.
                standby_reported_ = true;
                if (passed_fd >= 0 && warm_.prepare_standby) warm_.prepare_standby(UniqueFd(passed_fd));
                else if (passed_fd >= 0) ::close(passed_fd);
                continue;
            }
            if (report.kind == ChildReport::seccomp_listener) {
                if (passed_fd >= 0) {
                    listener_.assign(passed_fd);
                    answer_denials();
                }
                continue;
            }
            if (report.kind == ChildReport::artifact) {
                report.path[sizeof report.path - 1] = '\0';
                if (passed_fd >= 0 && collected_fds_.size() < static_cast<std::size_t>(kMaxCollectedFiles))
                    collected_fds_.emplace_back(std::string(report.path), UniqueFd(passed_fd));
                else if (passed_fd >= 0) ::close(passed_fd);
                continue;
            }
            if (passed_fd >= 0) ::close(passed_fd);  // no other report carries one
            last_report_ = report;
        }
    }

    // Every call the filter denies waits for our answer: EPERM (deny mode) after recording it, or a kill.
    void answer_denials() {
        listener_.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
            if (ec || !self->listener_.is_open()) return;
            // SECCOMP_IOCTL_NOTIF_RECV blocks until a call comes: on a stale wake-up it would hang this thread.
            if (!readable_now(self->listener_.native_handle())) return self->answer_denials();
            seccomp_notif request{};
            if (::ioctl(self->listener_.native_handle(), SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) {
                // ENOENT: the caller died before we received its call. POLLHUP: nobody uses the filter
                // any more, so no call can come: stop listening (re-arming would spin).
                pollfd state{self->listener_.native_handle(), POLLIN, 0};
                if (::poll(&state, 1, 0) > 0 && (state.revents & POLLHUP)) return;
                if (errno == EINTR || errno == ENOENT) return self->answer_denials();
                return;
            }
            const auto name = syscall_name(request.data.arch, request.data.nr);
            auto& denied = self->result_.denied_syscalls;
            if (std::find(denied.begin(), denied.end(), name) == denied.end()) denied.push_back(name);
            if (self->isolation_.seccomp == SeccompMode::kill) {
                self->kill_for(Outcome::seccomp_violation);
                return;
            }
            seccomp_notif_resp response{};
            response.id = request.id;
            response.error = -EPERM;
            ::ioctl(self->listener_.native_handle(), SECCOMP_IOCTL_NOTIF_SEND, &response);
            self->answer_denials();
        });
    }

    // cpu time of the whole tree (not only per process, as RLIMIT_CPU sees it).
    void poll_cpu() {
        cpu_timer_.expires_after(kCpuPollInterval);
        cpu_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (ec || self->reaped_) return;
            const auto cpu = self->cgroup_->usage_since(self->cgroup_start_).cpu_time;
            if (cpu && *cpu > self->limits_.cpu_time) return self->kill_for(Outcome::cpu_limit);
            self->poll_cpu();
        });
    }

    void kill_for(Outcome reason) {
        if (reaped_ || killed_for_) return;
        killed_for_ = reason;
        // Warm: the zygote reports the program's pidfd before the program runs, but we may not have read it.
        if (warm() && !pidfd_.is_open()) drain_reports();
        if (reaped_) return;
        if (pidfd_.is_open()) {
            ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGKILL, nullptr, 0);
        } else if (warm_.kill_zygote) {
            // The zygote never handed over the program: it is broken, and goes with everything in it.
            zygote_healthy_ = false;
            warm_.kill_zygote();
        }
    }

    bool warm() const noexcept { return static_cast<bool>(warm_.release); }

    // Warm: the program runs (it was in its cgroup before the request was sent); its pidfd lets us kill it.
    void on_warm_start(int pidfd) {
        program_started_ = true;
        pidfd_.assign(pidfd);
    }

    // Warm: the zygote died. What we sent it may be stuck in its socket, so no end-of-file will come:
    // before the program started, run the request cold; after, finish with what we have.
    void on_zygote_exit() {
        if (finished_ || reaped_) return;
        drain_reports();  // a program that started has run: it is never run again, cold
        if (finished_ || reaped_) return;
        if (!program_started_ && !killed_for_ && warm_.run_cold) {
            finished_ = true;
            reaped_ = true;
            zygote_exit_.close();
            timer_.cancel();
            cpu_timer_.cancel();
            stdout_.close();
            stderr_.close();
            report_.close();
            listener_.close();
            cgroup_.reset();
            auto release = std::move(warm_.release);
            warm_.release = nullptr;
            release(false);
            return warm_.run_cold(std::move(handler_));
        }
        zygote_healthy_ = false;
        drain_reports();
        if (!reaped_) on_warm_end();
        stdout_.close();
        stderr_.close();
    }

    // Warm: the zygote closed the report channel after reporting the program's end (or died).
    void on_warm_end() {
        program_gone();
        if (last_report_ && last_report_->kind == ChildReport::program_ended) {
            take_usage_from(*last_report_);
        } else if (!last_report_ || last_report_->kind != ChildReport::setup_failed) {
            zygote_healthy_ = false;
        }
        if (last_report_ && last_report_->kind == ChildReport::setup_failed) zygote_healthy_ = false;
        // With cgroups, the next execution needs the process the zygote prepares while this one runs.
        if (cgroup_ && warm_.prepare_standby && !standby_reported_) zygote_healthy_ = false;
        maybe_finish();
    }

    // The program is gone (reaped, or reported ended by whoever reaped it): its wall time ends here, and
    // no limit needs watching any more.
    void program_gone() {
        reaped_ = true;
        result_.wall_time = std::chrono::steady_clock::now() - started_;
        timer_.cancel();
        cpu_timer_.cancel();
    }

    // The program's CPU time and peak RSS, as the process that reaped it measured them (the zygote or the
    // cold init; child_report.hpp).
    void take_usage_from(const ChildReport& ended) {
        if (ended.cpu_us >= 0) result_.cpu_time = std::chrono::microseconds(ended.cpu_us);
        if (ended.peak_rss_kib > 0) result_.peak_memory_bytes = static_cast<std::uint64_t>(ended.peak_rss_kib) * 1024u;
    }


    // Cold: the init reported the program's end with nothing else left in the sandbox (no process of the
    // program's can run, write or allocate any more), so the result need not wait for the init's own exit.
    bool program_ended_alone() const noexcept {
        return !warm() && !reaped_ && !killed_for_ && last_report_ && last_report_->kind == ChildReport::program_ended &&
               last_report_->namespace_empty != 0;
    }

    void on_program_ended_alone() {
        program_gone();
        take_usage_from(*last_report_);
        init_exiting_ = true;  // maybe_finish hands it and the cgroup to deferred_reap
        boost::system::error_code ignored;
        pidfd_.cancel(ignored);  // its wait would hold the caller's loop until the init is gone
        maybe_finish();
    }

    void on_exit() {
        if (reaped_) return;  // the program ended alone: deferred_reap waits for the init
        int status = 0;
        struct rusage usage {};
        pid_t waited;
        while ((waited = ::wait4(pid_, &status, __WALL | WNOHANG, &usage)) < 0 && errno == EINTR) {
        }
        if (waited == 0) {  // spurious readiness: wait again
            pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                              [self = shared_from_this()](boost::system::error_code) { self->on_exit(); });
            return;
        }
        program_gone();
        take_usage_from(program_ended_report(status, usage));
        maybe_finish();
    }

    void maybe_finish() {
        if (!reaped_ || stdout_open_ || stderr_open_ || finished_) return;
        finished_ = true;
        zygote_exit_.close();  // an idle zygote lives on: waiting for its end would keep the loop running
        if (warm() && !program_started_ && !killed_for_ && warm_.run_cold &&
            !(last_report_ && last_report_->kind == ChildReport::setup_failed)) {
            // The zygote was gone before it forked the program: nothing ran, so run it cold instead.
            report_.close();
            cgroup_.reset();
            auto release = std::move(warm_.release);
            warm_.release = nullptr;
            release(false);
            reaped_ = true;
            return warm_.run_cold(std::move(handler_));
        }
        drain_reports();
        report_.close();
        listener_.close();
        // The files the init passed (ExecRequest::collect), read now that nothing in the sandbox can change them.
        result_.collected = read_collected_files(collected_fds_, limits_.workspace_bytes);
        if (cgroup_) {
            cgroup_usage_ = cgroup_->usage_since(cgroup_start_);
            // The cgroup sees the whole tree, also processes killed before anyone reaped them.
            if (cgroup_usage_.cpu_time) result_.cpu_time = *cgroup_usage_.cpu_time;
            // A warm program was forked from the zygote, so the pages it shares with the zygote are not
            // charged to its cgroup: its own peak RSS (from the zygote's wait4) is the better figure.
            if (cgroup_usage_.peak_memory_bytes && !(warm() && result_.peak_memory_bytes))
                result_.peak_memory_bytes = cgroup_usage_.peak_memory_bytes;
            result_.cgroup_version = std::string(to_string(cgroup_->version()));
            // Removes it, unless it is a zygote's, reused by its next executions, or still holds the
            // exiting init (deferred_reap removes it then).
            if (!init_exiting_) cgroup_.reset();
        } else {
            result_.cgroup_version = "none";
        }
        if (init_exiting_) reap_after_result(pid_, std::move(cgroup_));
        result_.isolation_level = result_.cgroup_version == "none" ? "standard" : "full";
        result_.warm = warm();
        classify();
        if (warm()) {
            auto release = std::move(warm_.release);
            warm_.release = nullptr;
            release(zygote_healthy_);
        }
        asio::get_associated_cancellation_slot(handler_).clear();  // nothing left to cancel
        auto handler = std::move(handler_);
        auto result = std::move(result_);
        asio::post(pidfd_.get_executor(), [handler = std::move(handler), result = std::move(result)]() mutable {
            std::move(handler)(std::move(result));
        });
    }

    void set(Outcome outcome, std::string detail) {
        result_.outcome = outcome;
        result_.detail = std::move(detail);
    }

    std::string denied_list() const {
        std::string list;
        for (const auto& name : result_.denied_syscalls) list += (list.empty() ? "" : ", ") + name;
        return list;
    }

    void classify() {
        if (!setup_failure_.empty()) return set(Outcome::sandbox_error, setup_failure_);
        if (last_report_ && last_report_->kind == ChildReport::setup_failed)
            return set(Outcome::sandbox_error, describe_setup_failure(*last_report_));
        if (killed_for_) {
            result_.signal = SIGKILL;
            switch (*killed_for_) {
                case Outcome::cancelled: return set(Outcome::cancelled, "killed: the caller cancelled the execution");
                case Outcome::timeout:
                    return set(Outcome::timeout, "killed after the " + seconds_text(limits_.wall_time) + " wall-clock limit");
                case Outcome::output_limit:
                    return set(Outcome::output_limit,
                               output_limit_detail(limits_.output_bytes, result_.stdout_truncated ? "stdout" : "stderr"));
                case Outcome::seccomp_violation:
                    return set(Outcome::seccomp_violation, "killed at a denied system call: " + denied_list());
                case Outcome::cpu_limit:
                    return set(Outcome::cpu_limit, "used more than the " + seconds_text(limits_.cpu_time) +
                                                       " cpu-time limit (all processes together)");
                default: break;
            }
        }
        if (!last_report_ || last_report_->kind != ChildReport::program_ended) {
            // The sandbox's init lives in the memory cgroup with the program, so the cgroup's OOM killer may take
            // it too when the tree runs out of memory (a compiler in a 64 MiB compile stage did, in CI run O):
            // then the memory limit ended the run, not a fault of the sandbox.
            if (cgroup_usage_.oom_kills > 0) {
                result_.signal = SIGKILL;
                return set(Outcome::memory_limit, "ran out of memory (limit " + std::to_string(limits_.memory_bytes / kMiB) +
                                                      " MiB): the memory cgroup's OOM killer ended the sandbox's init with it");
            }
            return set(Outcome::sandbox_error, "the sandbox's init process ended without reporting the program's status");
        }
        const int status = last_report_->value;
        const std::string denials = result_.denied_syscalls.empty() ? "" : "; denied system calls: " + denied_list();
        const bool memory_exhausted = cgroup_usage_.oom_kills > 0 ||
                                      (read_limit_messages_ && stderr_reports_limit(language_, LimitKind::memory, result_.stderr_data));
        if (WIFEXITED(status)) {
            result_.exit_code = WEXITSTATUS(status);
            if (result_.exit_code == 0) return set(Outcome::ok, denials.empty() ? "" : denials.substr(2));
        } else {
            result_.signal = WTERMSIG(status);
        }
        // The program failed: name the limit that made it fail, when one did.
        if (memory_exhausted)
            return set(Outcome::memory_limit, "ran out of memory (limit " + std::to_string(limits_.memory_bytes / kMiB) + " MiB)" + denials);
        if (cgroup_usage_.pids_limit_hits > 0 ||
            (read_limit_messages_ && stderr_reports_limit(language_, LimitKind::processes, result_.stderr_data)))
            return set(Outcome::pids_limit, "could not start more than " + std::to_string(limits_.max_processes) +
                                                " processes" + denials);
        if (result_.signal == SIGXCPU || (result_.signal == SIGKILL && result_.cpu_time >= limits_.cpu_time))
            return set(Outcome::cpu_limit, "used more than the " + seconds_text(limits_.cpu_time) + " cpu-time limit" + denials);
        if (result_.signal == SIGXFSZ || (read_limit_messages_ && stderr_reports_limit(language_, LimitKind::file_size, result_.stderr_data)))
            return set(Outcome::file_limit, "wrote a file larger than " + std::to_string(limits_.file_size_bytes) + " bytes" + denials);
        if (result_.signal == SIGSYS)
            return set(Outcome::seccomp_violation, "killed by the seccomp filter" + denials);
        if (WIFSIGNALED(status))
            return set(Outcome::signaled, std::string("killed by signal ") + std::to_string(result_.signal) + " (SIG" +
                                              sigabbrev_np(result_.signal) + ")" + denials);
        set(Outcome::exit_nonzero, "exited with status " + std::to_string(result_.exit_code) + denials);
    }

    Limits limits_;
    IsolationProfile isolation_;
    Language language_;
    bool read_limit_messages_;
    pid_t pid_;
    asio::posix::stream_descriptor pidfd_;
    asio::posix::stream_descriptor stdout_;
    asio::posix::stream_descriptor stderr_;
    asio::posix::stream_descriptor report_;
    asio::posix::stream_descriptor listener_;
    asio::posix::stream_descriptor zygote_exit_;
    asio::steady_timer timer_;
    asio::steady_timer cpu_timer_;
    std::shared_ptr<SandboxCgroup> cgroup_;
    CgroupUsage cgroup_start_;
    CgroupUsage cgroup_usage_;
    asio::any_completion_handler<void(ExecResult)> handler_;
    WarmHooks warm_;
    std::chrono::steady_clock::time_point started_;
    std::array<char, 65536> stdout_buffer_{};
    std::array<char, 65536> stderr_buffer_{};
    ExecResult result_;
    std::optional<ChildReport> last_report_;
    std::vector<std::pair<std::string, UniqueFd>> collected_fds_;
    std::optional<Outcome> killed_for_;
    bool zygote_healthy_ = true;
    bool program_started_ = false;
    bool standby_reported_ = false;
    std::string setup_failure_;
    bool stdout_open_ = true;
    bool stderr_open_ = true;
    bool reaped_ = false;
    bool finished_ = false;
    bool init_exiting_ = false;
};

}  // namespace

Zygote::Zygote(pid_t init_pid, UniqueFd init_pidfd, UniqueFd control,
               std::array<std::shared_ptr<SandboxCgroup>, 2> execution_cgroups)
    : init_pid_(init_pid),
      init_pidfd_(std::move(init_pidfd)),
      control_(std::move(control)),
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
    std::packaged_task<std::string()> move([cgroup = execution_cgroups_[next_cgroup_],
                                            pidfd = standby_pidfd_.get()]() -> std::string {
        try {
            cgroup->add_process(pid_of(pidfd));
        } catch (const std::exception& failure) {
            return std::string("the warm pool could not move its next execution's process into its cgroup: ") +
                   failure.what();
        }
        // A pid names the standby until the zygote reaps it: if it is not reaped now, the pid written was its.
        if (::syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) != 0)
            return "the warm pool's next execution's process ended while it was moved into its cgroup";
        return {};
    });
    standby_moved_ = move.get_future();
    asio::post(mover_, std::move(move));
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
    return "the warm-pool zygote exited during start-up" +
           (got > 0 ? ": " + std::string(text, static_cast<std::size_t>(got)) : std::string());
}

bool Zygote::alive() const noexcept {
    if (reaped_) return false;
    pollfd exited{init_pidfd_.get(), POLLIN, 0};
    return ::poll(&exited, 1, 0) == 0;  // a pidfd becomes readable when the process exits (0: do not wait)
}

void Zygote::signal_kill() noexcept {
    if (!reaped_) ::syscall(SYS_pidfd_send_signal, init_pidfd_.get(), SIGKILL, nullptr, 0);
}

void Zygote::kill() noexcept {
    if (reaped_) return;
    reaped_ = true;
    kill_and_reap(init_pid_, init_pidfd_.get());
}

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
    auto zygote = std::make_unique<Zygote>(spawned.pid, std::move(spawned.pidfd), std::move(spawned.report),
                                           std::move(execution_cgroups));
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

namespace {

// What the zygote's compiled loop reads: the execution's steps and environment.
std::string warm_request(const SupervisionRequest& request) {
    WarmRequest warm;
    warm.steps.workspace_bytes = request.limits.workspace_bytes;
    warm.steps.rlimits = request.plan.rlimits;
    for (auto& limit : warm.steps.rlimits)
        // The zygote and the keeper run as the same id and count toward RLIMIT_NPROC too.
        if (limit.resource == RLIMIT_NPROC) limit.soft += 2, limit.hard += 2;
    warm.environment = request.plan.environment;
    return encode_warm_request(warm);
}

}  // namespace

bool supervise_warm(asio::any_io_executor executor, Zygote& zygote, SupervisionRequest request, WarmHooks hooks,
                    asio::any_completion_handler<void(ExecResult)>& handler) {
    check_stdin_size(request.stdin_data);
    // The cgroup its standby is already in: limits for this request, and the counters it starts from.
    std::shared_ptr<SandboxCgroup> cgroup;
    CgroupUsage cgroup_start;
    try {
        cgroup = zygote.take_standby_cgroup();
        if (cgroup) {
            cgroup->apply_limits(request.limits);
            cgroup_start = cgroup->begin_execution();
        }
    } catch (const error&) {
        return false;  // the zygote cannot serve: the caller releases it as broken and runs the request cold
    }
    UniqueFd stdin_read = prefilled_stdin(request.stdin_data);
    Pipe out = make_stdio_pipe(), err = make_stdio_pipe();
    ReportChannel report = make_report_channel();
    const UniqueFd code = sealed_memfd("e2beval-code", request.plan.program_source);

    const auto header = warm_request(request);
    ++zygote.uses;
    if (!send_with_fds(zygote.control(), header,
                       {code.get(), stdin_read.get(), out.write_end.get(), err.write_end.get(), report.child_end.get()}))
        return false;

    Spawned spawned{-1, UniqueFd(), std::move(out.read_end), std::move(err.read_end), std::move(report.parent_end),
                    std::move(cgroup), cgroup_start};
    std::make_shared<Supervision>(executor, request, std::move(spawned), std::move(handler), std::move(hooks))->start();
    return true;
}

InteractiveSandbox spawn_interactive(SupervisionRequest request) {
    InteractiveSandbox sandbox;
    Spawned spawned = spawn(request, true, &sandbox.stdin_write);
    sandbox.pid = spawned.pid;
    sandbox.pidfd = std::move(spawned.pidfd);
    sandbox.stdout_read = std::move(spawned.stdout_read);
    sandbox.stderr_read = std::move(spawned.stderr_read);
    sandbox.report = std::move(spawned.report);
    if (spawned.cgroup) sandbox.cgroup = std::make_unique<SandboxCgroup>(std::move(*spawned.cgroup));
    return sandbox;
}

void kill_interactive(InteractiveSandbox& sandbox) noexcept {
    if (sandbox.pid <= 0) return;
    kill_and_reap(sandbox.pid, sandbox.pidfd.get());
    sandbox.pid = -1;
    sandbox.cgroup.reset();  // kills anything left in the cgroup and removes it
}

void supervise(asio::any_io_executor executor, SupervisionRequest request,
               asio::any_completion_handler<void(ExecResult)> handler) {
    std::optional<Spawned> spawned;
    try {
        spawned.emplace(spawn(request));
    } catch (const error& failure) {
        // Bad input and a host below the required isolation level are the caller's to handle.
        if (failure.code() == errc::invalid_input || failure.code() == errc::unsupported) throw;
        ExecResult result;
        result.outcome = Outcome::sandbox_error;
        result.detail = failure.what();
        asio::post(executor, [handler = std::move(handler), result = std::move(result)]() mutable {
            std::move(handler)(std::move(result));
        });
        return;
    }
    std::make_shared<Supervision>(executor, request, std::move(*spawned), std::move(handler))->start();
}

}  // namespace e2beval::local

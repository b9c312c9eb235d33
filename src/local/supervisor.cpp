// Parent side of the local sandbox, in order: pipes, clone3 into new namespaces, id maps, go; then an
// Asio operation that waits on the pidfd and the output pipes under a wall-clock timer, kills the whole
// tree (pid namespace init) on timeout or output overflow, and turns what it saw into an ExecResult.
#include "local/supervisor.hpp"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "e2beval/error.hpp"
#include "local/contain.hpp"
#include "local/fd.hpp"

namespace e2beval::local {

namespace asio = boost::asio;

namespace {

constexpr std::uint64_t kNamespaces = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC |
                                      CLONE_NEWUTS | CLONE_NEWCGROUP;

// Stdin is written whole before the child starts, so the parent never blocks on it and never gets
// SIGPIPE from a program that does not read it.
UniqueFd prefilled_stdin(const std::string& data) {
    Pipe pipe = make_pipe();
    if (data.empty()) return std::move(pipe.read_end);
    if (data.size() > 64 * 1024 &&
        ::fcntl(pipe.write_end.get(), F_SETPIPE_SZ, static_cast<int>(std::min<std::size_t>(data.size(), 1 << 20))) < 0)
        throw sandbox_error(describe_syscall_failure("fcntl(F_SETPIPE_SZ, " + std::to_string(data.size()) + ")", errno),
                            errc::invalid_input);
    std::size_t written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(pipe.write_end.get(), data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw sandbox_error(describe_syscall_failure("write(stdin pipe)", errno));
        written += static_cast<std::size_t>(n);
    }
    return std::move(pipe.read_end);
}

struct Spawned {
    pid_t pid = -1;
    UniqueFd pidfd;
    UniqueFd stdout_read;
    UniqueFd stderr_read;
    UniqueFd report_read;
};

void kill_and_reap(pid_t pid, int pidfd) noexcept {
    ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    int status = 0;
    while (::wait4(pid, &status, __WALL, nullptr) < 0 && errno == EINTR) {
    }
}

Spawned spawn(SupervisionRequest& request) {
    if (request.stdin_data.size() > (1u << 20))
        throw sandbox_error("stdin for the sandbox is larger than 1 MiB; pass the data as a file instead",
                            errc::invalid_input);
    UniqueFd stdin_read = prefilled_stdin(request.stdin_data);
    Pipe out = make_pipe(), err = make_pipe(), report = make_pipe(), go = make_pipe();

    int pidfd = -1;
    clone_args args{};
    args.flags = kNamespaces | CLONE_PIDFD;
    args.pidfd = reinterpret_cast<std::uint64_t>(&pidfd);
    args.exit_signal = 0;  // no SIGCHLD: host code that reaps "any child" cannot steal ours
    const long pid = ::syscall(SYS_clone3, &args, sizeof args);
    if (pid < 0)
        throw sandbox_error(describe_syscall_failure(
            "clone3(CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNS|CLONE_NEWNET|CLONE_NEWIPC|CLONE_NEWUTS|CLONE_NEWCGROUP)",
            errno), errno == EPERM || errno == ENOSPC || errno == EINVAL ? errc::unsupported : errc::sandbox_setup);
    if (pid == 0) {
        run_sandbox_init(request.plan, ChildFds{stdin_read.get(), out.write_end.get(), err.write_end.get(),
                                                report.write_end.get(), go.read_end.get()});
    }

    Spawned spawned{static_cast<pid_t>(pid), UniqueFd(pidfd), std::move(out.read_end), std::move(err.read_end),
                    std::move(report.read_end)};
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
    return spawned;
}

std::string describe_setup_failure(const ChildReport& report) {
    std::string where = report.path[0] ? std::string(" on ") + report.path : std::string();
    return "sandbox set-up failed inside the child: " + std::string(report.call) + where + ": " +
           std::strerror(report.value);
}

std::string seconds_text(std::chrono::milliseconds duration) {
    const double seconds = static_cast<double>(duration.count()) / 1000.0;
    char text[32];
    std::snprintf(text, sizeof text, "%g s", seconds);
    return text;
}

// Python reports the rlimit-based memory and file-size limits as exceptions, not signals.
bool stderr_reports(const std::string& stderr_data, std::string_view marker) {
    const auto tail_start = stderr_data.size() > 4096 ? stderr_data.size() - 4096 : 0;
    return stderr_data.find(marker, tail_start) != std::string::npos;
}

class Supervision : public std::enable_shared_from_this<Supervision> {
public:
    Supervision(asio::any_io_executor executor, SupervisionRequest& request, Spawned spawned,
                asio::any_completion_handler<void(ExecResult)> handler)
        : limits_(request.limits),
          language_(request.language),
          pid_(spawned.pid),
          pidfd_(executor, spawned.pidfd.release()),
          stdout_(executor, spawned.stdout_read.release()),
          stderr_(executor, spawned.stderr_read.release()),
          report_(std::move(spawned.report_read)),
          timer_(executor),
          handler_(std::move(handler)),
          started_(std::chrono::steady_clock::now()) {}

    ~Supervision() {
        // Abandoned before the end (its executor stopped): the sandbox must not outlive us.
        if (!reaped_) kill_and_reap(pid_, pidfd_.native_handle());
    }

    void start() {
        timer_.expires_after(limits_.wall_time);
        timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) self->kill_for(Outcome::timeout);
        });
        pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                          [self = shared_from_this()](boost::system::error_code) { self->on_exit(); });
        read_output(stdout_, result_.stdout_data, result_.stdout_truncated, stdout_open_);
        read_output(stderr_, result_.stderr_data, result_.stderr_truncated, stderr_open_);
    }

private:
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

    void kill_for(Outcome reason) {
        if (reaped_ || killed_for_) return;
        killed_for_ = reason;
        ::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGKILL, nullptr, 0);
    }

    void on_exit() {
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
        reaped_ = true;
        result_.wall_time = std::chrono::steady_clock::now() - started_;
        result_.cpu_time = std::chrono::seconds(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                           std::chrono::microseconds(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
        if (usage.ru_maxrss > 0) result_.peak_memory_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024u;
        timer_.cancel();
        maybe_finish();
    }

    void maybe_finish() {
        if (!reaped_ || stdout_open_ || stderr_open_ || finished_) return;
        finished_ = true;
        classify();
        auto handler = std::move(handler_);
        auto result = std::move(result_);
        asio::post(pidfd_.get_executor(), [handler = std::move(handler), result = std::move(result)]() mutable {
            std::move(handler)(std::move(result));
        });
    }

    std::optional<ChildReport> read_report() {
        ChildReport report;
        std::optional<ChildReport> last;
        while (::read(report_.get(), &report, sizeof report) == static_cast<ssize_t>(sizeof report)) last = report;
        return last;
    }

    void classify() {
        const auto report = read_report();
        if (report && report->kind == ChildReport::setup_failed) {
            result_.outcome = Outcome::sandbox_error;
            result_.detail = describe_setup_failure(*report);
            return;
        }
        if (killed_for_ == Outcome::timeout) {
            result_.outcome = Outcome::timeout;
            result_.signal = SIGKILL;
            result_.detail = "killed after the " + seconds_text(limits_.wall_time) + " wall-clock limit";
            return;
        }
        if (killed_for_ == Outcome::output_limit) {
            result_.outcome = Outcome::output_limit;
            result_.signal = SIGKILL;
            result_.detail = "killed after writing more than " + std::to_string(limits_.output_bytes) +
                             " bytes to " + (result_.stdout_truncated ? "stdout" : "stderr");
            return;
        }
        if (!report || report->kind != ChildReport::program_ended) {
            result_.outcome = Outcome::sandbox_error;
            result_.detail = "the sandbox's init process ended without reporting the program's status";
            return;
        }
        const int status = report->value;
        if (WIFEXITED(status)) {
            result_.exit_code = WEXITSTATUS(status);
            if (result_.exit_code == 0) {
                result_.outcome = Outcome::ok;
            } else if (language_ == Language::python && stderr_reports(result_.stderr_data, "MemoryError")) {
                result_.outcome = Outcome::memory_limit;
                result_.detail = "ran out of memory (limit " + std::to_string(limits_.memory_bytes / kMiB) + " MiB)";
            } else if (language_ == Language::python && stderr_reports(result_.stderr_data, "File too large")) {
                result_.outcome = Outcome::file_limit;
                result_.detail = "wrote a file larger than " + std::to_string(limits_.file_size_bytes) + " bytes";
            } else {
                result_.outcome = Outcome::exit_nonzero;
                result_.detail = "exited with status " + std::to_string(result_.exit_code);
            }
            return;
        }
        result_.signal = WTERMSIG(status);
        const bool over_cpu = result_.cpu_time >= limits_.cpu_time;
        if (result_.signal == SIGXCPU || (result_.signal == SIGKILL && over_cpu)) {
            result_.outcome = Outcome::cpu_limit;
            result_.detail = "used more than the " + seconds_text(limits_.cpu_time) + " cpu-time limit";
        } else if (result_.signal == SIGXFSZ) {
            result_.outcome = Outcome::file_limit;
            result_.detail = "wrote a file larger than " + std::to_string(limits_.file_size_bytes) + " bytes";
        } else {
            result_.outcome = Outcome::signaled;
            result_.detail = std::string("killed by signal ") + std::to_string(result_.signal) + " (" +
                             sigabbrev_np(result_.signal) + ")";
        }
    }

    Limits limits_;
    Language language_;
    pid_t pid_;
    asio::posix::stream_descriptor pidfd_;
    asio::posix::stream_descriptor stdout_;
    asio::posix::stream_descriptor stderr_;
    UniqueFd report_;
    asio::steady_timer timer_;
    asio::any_completion_handler<void(ExecResult)> handler_;
    std::chrono::steady_clock::time_point started_;
    std::array<char, 65536> stdout_buffer_{};
    std::array<char, 65536> stderr_buffer_{};
    ExecResult result_;
    std::optional<Outcome> killed_for_;
    bool stdout_open_ = true;
    bool stderr_open_ = true;
    bool reaped_ = false;
    bool finished_ = false;
};

}  // namespace

void supervise(asio::any_io_executor executor, SupervisionRequest request,
               asio::any_completion_handler<void(ExecResult)> handler) {
    Spawned spawned;
    try {
        spawned = spawn(request);
    } catch (const error& failure) {
        if (failure.code() == errc::invalid_input) throw;
        ExecResult result;
        result.outcome = Outcome::sandbox_error;
        result.detail = failure.what();
        asio::post(executor, [handler = std::move(handler), result = std::move(result)]() mutable {
            std::move(handler)(std::move(result));
        });
        return;
    }
    ::fcntl(spawned.report_read.get(), F_SETFL, O_NONBLOCK);
    std::make_shared<Supervision>(executor, request, std::move(spawned), std::move(handler))->start();
}

}  // namespace e2beval::local

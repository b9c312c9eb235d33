// What a cold and a warm execution's watchers share (cold_watch.hpp, warm_watch.hpp): an Asio operation on the
// caller's executor that reads the program's output under its cap, the reports of its init or zygote, the
// seccomp listener's denied calls, a wall-clock timer and the cgroup's CPU time; kills the program at a limit
// or the caller's cancellation; and once everything is in, turns it into an ExecResult (verdict.hpp) and
// calls the handler exactly once.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "local/sandbox_spawn.hpp"
#include "local/supervision_request.hpp"

namespace e2beval::local {

class ExecutionWatch : public std::enable_shared_from_this<ExecutionWatch> {
public:
    ExecutionWatch(const ExecutionWatch&) = delete;
    ExecutionWatch& operator=(const ExecutionWatch&) = delete;
    virtual ~ExecutionWatch() = default;

    // Takes the handler and starts watching. From here on the handler is called exactly once, on the executor.
    void start(SupervisionHandler handler);

protected:
    ExecutionWatch(boost::asio::any_io_executor executor, const SupervisionRequest& request, Spawned& spawned);

    // What cold and warm tell apart.
    virtual bool program_over() const noexcept = 0;  // ended, reported ended or handed on: no limit to watch
    virtual void watch_program() = 0;                // starts waiting for the program's end
    virtual void kill_program() = 0;                 // the limit in killed_for_ (set) was hit
    virtual void maybe_finish() = 0;                 // an output or the report channel closed, or the program ended
    virtual void on_program_started(UniqueFd pidfd) { (void)pidfd; }     // warm: the program's pidfd
    virtual void on_standby_ready(UniqueFd pidfd) { (void)pidfd; }       // warm: the next execution's process
    virtual void on_reports_closed() {}                                  // the reporter is gone
    virtual bool ended_by_report() { return false; }  // after reports were read: true when that ended the watch

    // Readiness is only a hint (why: readable_now in execution_watch.cpp): true when `fd` really is readable.
    static bool readable_now(int fd);

    void kill_for(Outcome reason);
    // Reads every report waiting; false once the channel is closed.
    bool drain_reports();
    // The program is gone: its wall time ends here, and no limit needs watching any more.
    void stop_clock();
    bool outputs_open() const noexcept { return stdout_open_ || stderr_open_; }
    void close_streams();  // the output pipes, the report channel and the listener; pending reads end
    // Fills result_ from everything observed (the last reports, the collected files, the cgroup's counters) and
    // classifies it; the cgroup stays held (a cold init that is still exiting needs it: cold_watch.cpp).
    void collect_result(bool warm);
    // The program's CPU time and peak RSS, as the process that reaped it measured them (child_report.hpp).
    void take_usage_from(const ChildReport& ended);
    // Posts the handler with result_ (or the one given). Call once.
    void complete();
    SupervisionHandler take_handler() noexcept { return std::move(handler_); }

    boost::asio::any_io_executor executor_;
    Limits limits_;
    IsolationProfile isolation_;
    Language language_;
    bool read_limit_messages_;
    boost::asio::posix::stream_descriptor stdout_;
    boost::asio::posix::stream_descriptor stderr_;
    boost::asio::posix::stream_descriptor report_;
    boost::asio::posix::stream_descriptor listener_;
    boost::asio::steady_timer timer_;
    boost::asio::steady_timer cpu_timer_;
    std::shared_ptr<SandboxCgroup> cgroup_;
    CgroupUsage cgroup_start_;
    std::chrono::steady_clock::time_point started_;
    ExecResult result_;
    std::optional<ChildReport> last_report_;
    std::optional<Outcome> killed_for_;
    std::optional<std::string> setup_failure_;  // the first setup_failed report, described

private:
    void read_output(boost::asio::posix::stream_descriptor& stream, std::string& sink, bool& truncated, bool& open);
    void read_reports();
    void answer_denials();
    void poll_cpu();
    std::array<char, 65536>& buffer_for(const boost::asio::posix::stream_descriptor* stream) {
        return stream == &stdout_ ? stdout_buffer_ : stderr_buffer_;
    }

    SupervisionHandler handler_;
    std::array<char, 65536> stdout_buffer_{};
    std::array<char, 65536> stderr_buffer_{};
    std::vector<std::pair<std::string, UniqueFd>> collected_fds_;
    CgroupUsage cgroup_usage_;
    bool stdout_open_ = true;
    bool stderr_open_ = true;
};

}  // namespace e2beval::local

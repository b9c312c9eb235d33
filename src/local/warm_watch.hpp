// Watching a warm execution: the program was forked by a warm-pool zygote, which reports its pidfd when it
// starts and its status when it ends; the end of the report channel means the program and its keeper are gone.
// When the zygote dies before the program started, nothing of the request ran, and it runs again, cold.
#pragma once

#include <functional>

#include "local/execution_watch.hpp"

namespace e2beval::local {

// What a warm execution calls when it is done with its zygote, or when the zygote must die.
struct WarmHooks {
    std::function<void(bool healthy)> release;
    std::function<void()> kill_zygote;
    // The zygote died before it started the program (nothing of the request ran): run it again, cold.
    std::function<void(SupervisionHandler)> run_cold;
    // The zygote reported the standby for its next execution (Zygote::prepare_standby).
    std::function<void(UniqueFd standby_pidfd)> prepare_standby;
    // A pidfd of the zygote's sandbox init (owned by the execution): readable once the zygote is gone.
    int zygote_pidfd = -1;
};

class WarmWatch final : public ExecutionWatch {
public:
    enum class State {
        sent,       // the request is in the zygote's hands; the program has not been reported started
        running,    // the zygote reported the program's pidfd
        ended,      // the report channel closed (the program's end reported) or the zygote died: outputs drain
        finished,   // the handler was posted, the zygote released
        ran_cold,   // the zygote died before the program started: the handler went to a cold run
    };

    WarmWatch(boost::asio::any_io_executor executor, const SupervisionRequest& request, Spawned spawned, WarmHooks hooks);
    ~WarmWatch() override;

private:
    bool program_over() const noexcept override { return state_ != State::sent && state_ != State::running; }
    void watch_program() override;
    void kill_program() override;
    void maybe_finish() override;
    void on_program_started(UniqueFd pidfd) override;
    void on_standby_ready(UniqueFd pidfd) override;
    void on_reports_closed() override;

    void on_zygote_exit();
    void on_end();
    // Nothing of the request ran: hand it to a cold run (the one teardown of that path).
    void run_cold();
    void release_zygote(bool healthy);

    WarmHooks hooks_;
    boost::asio::posix::stream_descriptor pidfd_;        // the program's, once reported (to kill it)
    boost::asio::posix::stream_descriptor zygote_exit_;  // hooks_.zygote_pidfd
    State state_ = State::sent;
    bool program_started_ = false;   // the zygote reported the program's start (it ran, even if it ended since)
    bool zygote_healthy_ = true;     // released to serve again, or to be killed
    bool standby_reported_ = false;  // the zygote prepared its next execution's process
};

}  // namespace e2beval::local

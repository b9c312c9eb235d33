// Watching a cold execution: the sandbox's init is our child (sandbox_spawn.hpp), watched through its pidfd
// and its reports.
#pragma once

#include "local/execution_watch.hpp"

namespace e2beval::local {

class ColdWatch final : public ExecutionWatch {
public:
    enum class State {
        running,      // the init (and the program) may still run
        ended_alone,  // the init reported the program's end with nothing else left: the result need not wait
                      // for the init's own exit (deferred_reap reaps it)
        reaped,       // the init exited and was reaped
        finished,     // the handler was posted
    };

    ColdWatch(boost::asio::any_io_executor executor, const SupervisionRequest& request, Spawned spawned);
    ~ColdWatch() override;

private:
    bool program_over() const noexcept override { return state_ != State::running; }
    void watch_program() override;
    void kill_program() override;
    void maybe_finish() override;
    bool ended_by_report() override;
    void on_exit();

    // The init, taken over from Spawned::init: the destructor kills and reaps it unless it was reaped or
    // handed to deferred_reap.
    pid_t pid_ = -1;
    boost::asio::posix::stream_descriptor pidfd_;
    State state_ = State::running;
};

}  // namespace e2beval::local

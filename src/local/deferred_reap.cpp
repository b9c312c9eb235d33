// See deferred_reap.hpp.
#include "local/deferred_reap.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "local/cgroup.hpp"

namespace e2beval::local {

namespace {

struct Reap {
    pid_t init_pid;
    std::shared_ptr<SandboxCgroup> cgroup;
};

void reap_now(Reap& reap) noexcept {
    ::kill(reap.init_pid, SIGKILL);  // it is exiting already; a pid not yet reaped cannot name another process
    int status = 0;
    while (::wait4(reap.init_pid, &status, __WALL, nullptr) < 0 && errno == EINTR) {
    }
    reap.cgroup.reset();  // removes it: the init, its last process, is gone
}

// The process's one reaper: made on first use and never destroyed, so its thread is an ordinary member it owns
// (no handle to leak in a process where the thread does not exist). The owner joins the thread at exit (atexit,
// after the queue is drained); a forked child starts from a fresh reaper, since the parent's thread and inits are
// not its own (and the copied mutex may have been held by that thread, which does not exist there).
class Reaper {
public:
    static Reaper& instance() {
        static const bool made = [] {
            current_ = new Reaper();
            ::pthread_atfork(nullptr, nullptr, [] { current_ = new Reaper(); });  // the parent's copy stays untouched
            std::atexit([] { current_->stop(); });
            return true;
        }();
        (void)made;
        return *current_;
    }

    void add(Reap reap) {
        std::lock_guard lock(mutex_);
        if (stopping_) return reap_now(reap);  // the process is exiting: nothing may be left behind
        if (!thread_.joinable()) {
            try {
                thread_ = std::thread([this] { serve(); });
            } catch (const std::system_error&) {
                reap_now(reap);  // no thread: the caller pays the ~1 ms, nothing is left behind
                return;
            }
        }
        queue_.push_back(std::move(reap));
        changed_.notify_all();
    }

    void finish() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
    }

private:
    Reaper() = default;

    // At exit: the thread drains the queue, then ends.
    void stop() {
        if (owner_ != ::getpid()) return;  // a child made without fork() (no atfork handler ran): the parent's reaper
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    void serve() {
        std::unique_lock lock(mutex_);
        for (;;) {
            changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping, and nothing left
            Reap reap = std::move(queue_.front());
            queue_.pop_front();
            busy_ = true;
            lock.unlock();
            reap_now(reap);
            lock.lock();
            busy_ = false;
            changed_.notify_all();
        }
    }

    static inline Reaper* current_ = nullptr;

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Reap> queue_;
    std::thread thread_;  // started by the first reap, joined by stop()
    bool stopping_ = false;
    bool busy_ = false;
    const pid_t owner_ = ::getpid();
};

}  // namespace

void reap_after_result(pid_t init_pid, std::shared_ptr<SandboxCgroup> cgroup) {
    Reaper::instance().add(Reap{init_pid, std::move(cgroup)});
}

void finish_deferred_reaps() { Reaper::instance().finish(); }

}  // namespace e2beval::local

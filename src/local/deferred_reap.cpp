// See deferred_reap.hpp.
#include "local/deferred_reap.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
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

class Reaper {
public:
    Reaper() { ::pthread_atfork(nullptr, nullptr, &Reaper::forget_in_child); }

    // Joined at the process's exit (static destruction), after the queue is drained.
    ~Reaper() {
        if (owner_ != ::getpid()) return;  // a forked child: the thread and the inits are the parent's
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        if (thread_ && thread_->joinable()) thread_->join();
        delete thread_;
    }

    void add(Reap reap) {
        std::lock_guard lock(mutex_);
        if (!thread_) {
            try {
                thread_ = new std::thread([this] { serve(); });
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

    static Reaper& instance() {
        static Reaper reaper;
        return reaper;
    }

private:
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

    // After fork, the child has no reaper thread and none of the parent's inits: a fresh, empty state
    // (the copied mutex may have been held by the thread that does not exist here).
    static void forget_in_child() noexcept {
        Reaper& reaper = instance();
        new (&reaper.mutex_) std::mutex();
        new (&reaper.changed_) std::condition_variable();
        new (&reaper.queue_) std::deque<Reap>();  // the parent's entries are leaked, never reaped here
        reaper.thread_ = nullptr;                 // likewise the parent's thread object
        reaper.stopping_ = false;
        reaper.busy_ = false;
        reaper.owner_ = ::getpid();
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Reap> queue_;
    std::thread* thread_ = nullptr;
    bool stopping_ = false;
    bool busy_ = false;
    pid_t owner_ = ::getpid();
};

}  // namespace

void reap_after_result(pid_t init_pid, std::shared_ptr<SandboxCgroup> cgroup) {
    Reaper::instance().add(Reap{init_pid, std::move(cgroup)});
}

void finish_deferred_reaps() { Reaper::instance().finish(); }

}  // namespace e2beval::local

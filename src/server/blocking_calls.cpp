// Threads for blocking session calls, and the pipe that carries a streaming call's events to its coroutine.
#include "server/blocking_calls.hpp"

#include <boost/asio/as_tuple.hpp>

#include <chrono>

namespace e2beval::server {

namespace asio = boost::asio;

void BlockingCalls::spawn(std::function<void()> work) {
    {
        std::lock_guard lock(count_->mutex);
        ++count_->running;
    }
    // The thread keeps the count alive itself: the last thing it does is to signal, and the waiter may return
    // (and this object go) the moment it does.
    std::thread([work = std::move(work), count = count_]() mutable {
        work();
        work = nullptr;  // what the work held (a session) goes before the count says this thread is done
        std::lock_guard lock(count->mutex);
        if (--count->running == 0) count->idle.notify_all();
    }).detach();
}

void BlockingCalls::queue(std::function<void()> work) {
    bool start_worker = false;
    {
        std::lock_guard lock(count_->mutex);
        count_->queued.push_back(std::move(work));
        if (count_->idle_workers == 0 && count_->workers < kWorkers) {
            ++count_->workers;
            ++count_->running;
            start_worker = true;
        }
    }
    if (!start_worker) return count_->work.notify_one();
    // A worker takes queued work until there is none for a while, then ends (an idle server has no workers).
    std::thread([count = count_] {
        std::unique_lock lock(count->mutex);
        for (;;) {
            if (count->queued.empty()) {
                ++count->idle_workers;
                const bool woken = count->work.wait_for(lock, std::chrono::seconds(5),
                                                        [&] { return !count->queued.empty() || count->stopping; }) &&
                                   !count->queued.empty();
                --count->idle_workers;
                if (!woken) break;
            }
            auto job = std::move(count->queued.front());
            count->queued.pop_front();
            lock.unlock();
            job();
            job = nullptr;  // what the job held (a session) goes before the count says this worker is done
            lock.lock();
        }
        --count->workers;
        if (--count->running == 0) count->idle.notify_all();
    }).detach();
}

void BlockingCalls::shutdown() {
    std::unique_lock lock(count_->mutex);
    count_->stopping = true;
    count_->work.notify_all();
    count_->idle.wait(lock, [&] { return count_->running == 0; });
}

}  // namespace e2beval::server

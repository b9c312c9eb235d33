// The E2B backend's engine: one I/O thread with the HTTP client, and the pool of remote sandboxes that
// one-shot executions share (created at a bounded rate, at most max_sandboxes alive, each reused for
// uses_per_sandbox executions, replaced after any anomaly, killed when the engine stops).
//
// Everything below runs on the engine's own io_context, so its state needs no lock. Why a thread of its own:
// the pool and its kept-alive connections outlive any one caller's io_context (a batch makes a new one per
// call), and the remote sandboxes must be killed when the backend ends, whatever the caller's loop does.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "e2b/e2b_api.hpp"
#include "e2b/http_client.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"

namespace e2beval {

struct E2bSandbox::Engine {
    using Clock = std::chrono::steady_clock;

    struct Slot {
        e2b::RemoteSandbox remote;
        unsigned uses = 0;
        bool busy = false;
        Clock::time_point expires;  // when its E2B timeout ends, as last set
    };

    explicit Engine(E2bSettings settings);
    ~Engine();  // stop() if not done

    // A remote sandbox for one execution that needs `needed` more of its lifetime; waits for a free one when
    // max_sandboxes are busy. Throws when none can be created.
    boost::asio::awaitable<std::shared_ptr<Slot>> acquire(std::chrono::seconds needed);
    // Back to the pool after use; `healthy` false (an anomaly) or its uses spent: killed instead.
    void release(const std::shared_ptr<Slot>& slot, bool healthy);

    // Kills every remote sandbox it created and ends the thread. Waits for the kills up to `patience`.
    void stop(std::chrono::milliseconds patience = std::chrono::seconds(10));

    E2bCounters counters();

    E2bSettings settings;
    // Set when stop() begins, read from any thread: a session's caller stops waiting for an engine that ends.
    std::atomic<bool> shutting_down{false};
    boost::asio::io_context io;
    e2b::HttpClient client;
    e2b::E2bApi api;
    const std::string engine_tag;  // metadata e2beval_engine of every sandbox it creates

    // A remote sandbox of its own (sessions): created, tracked and killed with the engine like the pool's.
    boost::asio::awaitable<e2b::RemoteSandbox> create_tracked(e2b::CreateSandbox request);
    void forget_tracked(const std::string& id);   // it was killed by its owner
    void kill_later(const std::string& id);       // in the background, counted

    // Runs `work` on the engine's thread and waits for its result (for the blocking faces).
    template <typename T>
    T run_blocking(boost::asio::awaitable<T> work);

private:
    boost::asio::awaitable<void> pace_creation();
    boost::asio::awaitable<void> kill_now(std::string id);
    boost::asio::awaitable<void> wait_for_kills(Clock::time_point until);
    boost::asio::awaitable<void> drain(Clock::time_point until);
    void wake_one();

    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
    std::vector<std::shared_ptr<Slot>> slots_;
    std::vector<std::string> tracked_;  // sessions' sandboxes
    std::deque<std::shared_ptr<boost::asio::steady_timer>> waiters_;
    std::size_t creating_ = 0;
    Clock::time_point next_creation_;
    std::size_t pending_kills_ = 0;
    // Waited on by wait_for_kills() until its bound; cancelled by the kill that brings pending_kills_ to zero,
    // so the wait ends on that event rather than on a periodic check.
    boost::asio::steady_timer kills_settled_{io};
    std::uint64_t created_ = 0;
    std::uint64_t killed_ = 0;
    bool stopped_ = false;
    bool creation_attempted_ = false;
    std::mutex stop_mutex_;
    std::thread thread_;  // last: it starts once everything above is built
};

}  // namespace e2beval

#include <boost/asio/co_spawn.hpp>
#include <future>

namespace e2beval {

template <typename T>
T E2bSandbox::Engine::run_blocking(boost::asio::awaitable<T> work) {
    std::promise<T> promise;
    auto future = promise.get_future();
    boost::asio::co_spawn(io, std::move(work), [&promise](std::exception_ptr failure, T value) {
        if (failure) promise.set_exception(failure);
        else promise.set_value(std::move(value));
    });
    return future.get();
}

}  // namespace e2beval

// Work that blocks and has no asynchronous form yet runs off the I/O thread: a sandbox's creation (the keeper
// clones it, then the agent starts), its kill, its metrics, the envd routes still written as blocking session
// calls (files, process.Process's unary calls), SandboxFusion's planning. run() queues it on a few workers
// (started on demand, gone when idle), so a burst of 200 creations costs kWorkers threads, not 200; session
// calls that stream (run_code, commands) never come here: they are Session::async_call on the I/O thread.
// spawn() is for the few long jobs that would hold a worker for minutes (SandboxFusion's /run_jupyter, a
// WatchDir's polling): a thread each. shutdown() waits for every thread still running.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>

#include "server/streaming_call.hpp"

namespace e2beval::server {

class BlockingCalls {
public:
    // At most this many workers: the machine's work is the sandboxes' start-up, which a couple of cores do
    // no faster with more threads (and the keeper clones them one at a time anyway).
    static constexpr std::size_t kWorkers = 4;

    // Runs `work` on a thread of its own (a long job).
    void spawn(std::function<void()> work);
    // Runs `work` on a worker, after the work queued before it.
    void queue(std::function<void()> work);

    // Runs `work` on a worker and resumes the awaiting coroutine on its executor with the value, or rethrows
    // what `work` threw.
    template <typename Result>
    boost::asio::awaitable<Result> run(std::function<Result()> work);

    // Waits until every thread has ended.
    void shutdown();

private:
    struct Count {
        std::mutex mutex;
        std::condition_variable idle;
        std::size_t running = 0;  // threads: workers and spawned ones
        std::deque<std::function<void()>> queued;
        std::size_t workers = 0;
        std::size_t idle_workers = 0;
        bool stopping = false;  // shutdown(): workers end as soon as the queue is empty
        std::condition_variable work;
    };
    std::shared_ptr<Count> count_ = std::make_shared<Count>();
};

// The events a job on a thread of its own (a WatchDir's polling) streams to one coroutine: the job pushes from
// its thread, each push posted to the I/O thread, where a CallEvents queue (streaming_call.hpp) holds them for
// the coroutine. The consumer sets abandoned (the client went away) on the I/O thread; the job may look at it
// from its own thread to stop early.
class EventPipe {
public:
    explicit EventPipe(boost::asio::any_io_executor io) : io_(io), events_(std::make_shared<CallEvents>(io)) {}

    using Tick = CallEvents::Tick;
    using Ended = CallEvents::Ended;
    using Next = CallEvents::Next;

    // Producer side (any thread).
    void push(std::string event) {
        if (abandoned_) return;
        boost::asio::post(io_, [events = events_, event = std::move(event)]() mutable { events->push(std::move(event)); });
    }
    void end(std::exception_ptr failure = nullptr) {
        boost::asio::post(io_, [events = events_, failure] { events->end(failure); });
    }
    bool abandoned() const { return abandoned_; }

    // Consumer side (the I/O thread).
    void abandon() {
        abandoned_ = true;
        events_->abandon(boost::asio::cancellation_type::terminal);  // no call is bound to it: this only drops and wakes
    }
    boost::asio::awaitable<Next> next(std::chrono::milliseconds tick) { return events_->next(tick); }
    std::exception_ptr failure() const { return events_->failure(); }

private:
    boost::asio::any_io_executor io_;
    std::shared_ptr<CallEvents> events_;
    std::atomic<bool> abandoned_{false};
};

template <typename Result>
boost::asio::awaitable<Result> BlockingCalls::run(std::function<Result()> work) {
    auto io = co_await boost::asio::this_coro::executor;
    struct Outcome {
        std::optional<Result> value;
        std::exception_ptr failure;
    };
    auto outcome = std::make_shared<Outcome>();
    auto timer = std::make_shared<boost::asio::steady_timer>(io, std::chrono::steady_clock::time_point::max());
    queue([work = std::move(work), outcome, timer, io]() mutable {
        try {
            outcome->value.emplace(work());
        } catch (...) {
            outcome->failure = std::current_exception();
        }
        boost::asio::post(io, [timer] { timer->cancel(); });
    });
    co_await timer->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (outcome->failure) std::rethrow_exception(outcome->failure);
    co_return std::move(*outcome->value);
}

}  // namespace e2beval::server

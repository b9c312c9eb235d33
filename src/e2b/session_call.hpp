// The two ends of one E2B session call: CallChannel carries its events from the engine's thread to the caller's
// (the caller runs its own event handler, so a slow handler never holds the engine's I/O), and CallControl is
// the engine-side switch that interrupts, detaches, ends or kills the coroutine serving it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <variant>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>

namespace e2beval::e2b {

// Thread-safe: the engine pushes, the caller takes. After the final event (or a failure) nothing more is kept.
class CallChannel {
public:
    struct Final {
        boost::json::object event;
    };
    struct Failed {
        std::exception_ptr failure;
    };
    struct NothingYet {};
    using Next = std::variant<boost::json::object, Final, Failed, NothingYet>;

    void push(boost::json::object event);
    void finish(boost::json::object final_event);
    void fail(std::exception_ptr failure);
    bool done();
    // The next event, the end, or NothingYet when `until` passed first.
    Next next(std::chrono::steady_clock::time_point until);

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<boost::json::object> events_;
    std::optional<boost::json::object> final_;
    std::exception_ptr failure_;
    bool done_ = false;
};

// Lives on the engine's thread (no lock). A serving coroutine waits on it; anything that must stop the call
// says why.
class CallControl {
public:
    enum class Stop { none, interrupt, detach, ended, killed };

    explicit CallControl(boost::asio::io_context& io) : stopper_(io, std::chrono::steady_clock::time_point::max()) {}

    void request(Stop why);
    Stop stop() const noexcept { return stop_; }
    void clear() noexcept { stop_ = Stop::none; }
    // Waits until a stop is requested (returns false) or `deadline` passes first (returns true). A cancelled
    // coroutine (the other branch of an `||` won) returns false at once.
    boost::asio::awaitable<bool> wait(std::optional<std::chrono::steady_clock::time_point> deadline);

private:
    boost::asio::steady_timer stopper_;
    Stop stop_ = Stop::none;
};

}  // namespace e2beval::e2b

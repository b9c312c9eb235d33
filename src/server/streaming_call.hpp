// A session request whose events a coroutine reads as they come: Session::async_call runs on the I/O thread
// (the agent's output is read there), and every event lands in a queue the coroutine awaits, with a tick for
// keepalives. When the client goes away, the request is interrupted (and only that request) through the
// call's cancellation slot.
#pragma once

#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <variant>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>

#include "server/sandbox_store.hpp"

namespace e2beval::server {

// The events of one call, on one single-threaded executor (the server's I/O thread): the call's handlers push,
// the route's coroutine takes. Nothing crosses threads, so no lock: a push runs between the coroutine's
// suspensions, and wakes its wait directly.
class CallEvents : public std::enable_shared_from_this<CallEvents> {
public:
    explicit CallEvents(boost::asio::any_io_executor io) : wake_(io) {}

    struct Tick {};
    struct Ended {};
    using Next = std::variant<std::string, Tick, Ended>;

    // The call's side.
    void push(std::string event);
    void end(std::exception_ptr failure);

    // The route's side: the next event, a Tick when `tick` passed without one (time for a keepalive), or Ended
    // once the call completed (or was abandoned) and every event was taken.
    boost::asio::awaitable<Next> next(std::chrono::milliseconds tick);
    std::exception_ptr failure() const { return failure_; }
    bool abandoned() const { return abandoned_; }
    // The client went away: drop what is queued and interrupt the call (partial = Mode::detach: a followed
    // command keeps running; terminal = Mode::stop). The call still completes, unseen.
    void abandon(boost::asio::cancellation_type type);

    boost::asio::cancellation_signal cancel;  // bound to the call's completion

private:
    boost::asio::steady_timer wake_;
    std::deque<std::string> events_;
    bool ended_ = false;
    bool abandoned_ = false;
    std::exception_ptr failure_;
};

// Starts `request` on `sandbox`'s session with its I/O on `io`: every event reaches the queue as JSON text, the
// final one last, then it ends (with the exception of the call, if any: a session that closed mid-request is
// sandbox_error).
std::shared_ptr<CallEvents> start_streaming_call(boost::asio::any_io_executor io, std::shared_ptr<ServedSandbox> sandbox,
                                                 boost::json::object request);

// Called when the client went away (Mode::stop interrupts a cell, Mode::detach leaves a followed command
// running, as envd does).
void abandon_streaming_call(const std::shared_ptr<CallEvents>& events, CallInterrupt::Mode mode = CallInterrupt::Mode::stop);

bool is_final_event(const boost::json::object& event);

// {"op": op} plus one string field: built in a plain function, because GCC 12 cannot brace-initialise JSON
// from string literals inside a coroutine.
boost::json::object session_request(std::string_view op, std::string_view key = {}, std::string_view value = {});

}  // namespace e2beval::server

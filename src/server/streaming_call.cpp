// Streaming session calls on the I/O thread.
#include "server/streaming_call.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

namespace e2beval::server {

namespace asio = boost::asio;
namespace json = boost::json;

json::object session_request(std::string_view op, std::string_view key, std::string_view value) {
    json::object request{{"op", op}};
    if (!key.empty()) request[key] = value;
    return request;
}

bool is_final_event(const json::object& event) {
    const auto* type = event.if_contains("type");
    if (!type || !type->is_string()) return false;
    const auto& name = type->as_string();
    return name == "end_of_execution" || name == "end" || name == "reply" || name == "failure";
}

void CallEvents::push(std::string event) {
    if (abandoned_) return;
    events_.push_back(std::move(event));
    wake_.cancel();
}

void CallEvents::end(std::exception_ptr failure) {
    ended_ = true;
    failure_ = failure;
    wake_.cancel();
}

void CallEvents::abandon(asio::cancellation_type type) {
    if (abandoned_) return;
    abandoned_ = true;
    events_.clear();
    wake_.cancel();
    if (!ended_) cancel.emit(type);
}

asio::awaitable<CallEvents::Next> CallEvents::next(std::chrono::milliseconds tick) {
    const auto deadline = std::chrono::steady_clock::now() + tick;
    for (;;) {
        if (!events_.empty()) {
            auto event = std::move(events_.front());
            events_.pop_front();
            co_return Next{std::move(event)};
        }
        if (ended_ || abandoned_) co_return Next{Ended{}};
        if (std::chrono::steady_clock::now() >= deadline) co_return Next{Tick{}};
        wake_.expires_at(deadline);
        co_await wake_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
}

std::shared_ptr<CallEvents> start_streaming_call(asio::any_io_executor io, std::shared_ptr<ServedSandbox> sandbox,
                                                 json::object request) {
    auto events = std::make_shared<CallEvents>(io);
    std::weak_ptr<CallEvents> weak = events;
    // The events hold a weak reference only: the completion handler holds the strong one, so the queue (and
    // the signal the call's slot points into) lives until the call has completed.
    auto on_event = [weak](const SessionEvent& event) {
        if (auto alive = weak.lock()) alive->push(json::serialize(event));
    };
    try {
        sandbox->session->async_call(
            std::move(request), std::move(on_event),
            asio::bind_cancellation_slot(events->cancel.slot(),
                                         asio::bind_executor(io, [events, sandbox](std::exception_ptr failure, SessionEvent final_event) {
                                             if (!failure) events->push(json::serialize(final_event));
                                             events->end(failure);
                                         })));
    } catch (...) {
        events->end(std::current_exception());  // refused before it started (the session is closed)
    }
    return events;
}

void abandon_streaming_call(const std::shared_ptr<CallEvents>& events, CallInterrupt::Mode mode) {
    events->abandon(mode == CallInterrupt::Mode::detach ? asio::cancellation_type::partial : asio::cancellation_type::terminal);
}

}  // namespace e2beval::server

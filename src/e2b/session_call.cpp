// CallChannel and CallControl (src/e2b/session_call.hpp).
#include "e2b/session_call.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace e2beval::e2b {

namespace asio = boost::asio;

void CallChannel::push(boost::json::object event) {
    std::lock_guard lock(mutex_);
    if (done_) return;
    events_.push_back(std::move(event));
    ready_.notify_all();
}

void CallChannel::finish(boost::json::object final_event) {
    std::lock_guard lock(mutex_);
    if (done_) return;
    final_ = std::move(final_event);
    done_ = true;
    ready_.notify_all();
}

void CallChannel::fail(std::exception_ptr failure) {
    std::lock_guard lock(mutex_);
    if (done_) return;
    failure_ = std::move(failure);
    done_ = true;
    ready_.notify_all();
}

bool CallChannel::done() {
    std::lock_guard lock(mutex_);
    return done_;
}

CallChannel::Next CallChannel::next(std::chrono::steady_clock::time_point until) {
    std::unique_lock lock(mutex_);
    ready_.wait_until(lock, until, [&] { return !events_.empty() || done_; });
    // Events pushed before the end are delivered before it.
    if (!events_.empty()) {
        auto event = std::move(events_.front());
        events_.pop_front();
        return event;
    }
    if (final_) return Final{std::move(*std::exchange(final_, std::nullopt))};
    if (failure_) return Failed{failure_};
    return NothingYet{};
}

void CallControl::request(Stop why) {
    // A kill overrides anything; otherwise the first reason stands until the waiter has seen it.
    if (stop_ == Stop::none || why == Stop::killed) stop_ = why;
    stopper_.cancel();
}

asio::awaitable<bool> CallControl::wait(std::optional<std::chrono::steady_clock::time_point> deadline) {
    for (;;) {
        if (stop_ != Stop::none) co_return false;
        if (deadline && std::chrono::steady_clock::now() >= *deadline) co_return true;
        stopper_.expires_at(deadline.value_or(std::chrono::steady_clock::time_point::max()));
        auto [ec] = co_await stopper_.async_wait(asio::as_tuple(asio::use_awaitable));
        if ((co_await asio::this_coro::cancellation_state).cancelled() != asio::cancellation_type::none) co_return false;
        if (!ec && stop_ == Stop::none) co_return true;
    }
}

}  // namespace e2beval::e2b

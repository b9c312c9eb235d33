// A SandboxFusion route's work, cancelled when its client goes away: the client's connection watched while the
// work runs, and a terminal cancellation sent into the work (a queued run leaves the queue; a running one has its
// sandbox or session killed) when the client closes it. /run_code, /run_jupyter and /submit all answer this way.
#pragma once

#include <exception>
#include <memory>
#include <optional>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "server/client_watch.hpp"
#include "server/http_exchange.hpp"

namespace e2beval::server::sandbox_fusion {

template <typename Result>
struct ClientWaitCompletion {
    std::optional<Result> value;
    std::exception_ptr failure;
};

// The value of `work`, or the exception it ended with (boost::system::system_error with operation_aborted when the
// client went away first).
template <typename Result>
boost::asio::awaitable<Result> while_client_waits(Exchange& exchange, boost::asio::awaitable<Result> work) {
    namespace asio = boost::asio;
    auto io = co_await asio::this_coro::executor;
    auto done = std::make_shared<ClientWaitCompletion<Result>>();
    auto wake = std::make_shared<asio::steady_timer>(io, asio::steady_timer::time_point::max());
    asio::cancellation_signal gone;
    ClientWatch watch(exchange.stream().socket(), [&gone] { gone.emit(asio::cancellation_type::terminal); });
    asio::co_spawn(io, std::move(work),
                   asio::bind_cancellation_slot(gone.slot(), [done, wake](std::exception_ptr failure, Result value) {
                       if (failure) done->failure = failure;
                       else done->value.emplace(std::move(value));
                       wake->cancel();
                   }));
    while (!done->value && !done->failure) co_await wake->async_wait(asio::as_tuple(asio::use_awaitable));
    watch.stop();
    if (done->failure) std::rethrow_exception(done->failure);
    co_return std::move(*done->value);
}

}  // namespace e2beval::server::sandbox_fusion

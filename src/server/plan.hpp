// How a route answers: at once (a Response), after blocking work on a worker thread (a function that returns
// the Response: a sandbox's creation or kill), after a session call awaited on the I/O thread (Awaited), or by
// streaming (the route's own coroutine). Routes are written as plain functions that
// return a Plan, so the coroutines that carry them out stay small (and clear of GCC 12's coroutine bugs with
// objects destroyed in nested scopes).
#pragma once

#include <functional>
#include <variant>

#include <boost/asio/awaitable.hpp>

#include "server/http_exchange.hpp"

namespace e2beval::server {

struct ServerContext;
struct Streaming {};  // the route streams its answer itself
using Awaited = std::function<boost::asio::awaitable<Response>()>;
using Plan = std::variant<Response, std::function<Response()>, Streaming, Awaited>;

// Answers `exchange` as `plan` says (a Streaming plan is the caller's to carry out).
boost::asio::awaitable<void> carry_out(ServerContext& context, Exchange& exchange, Plan plan);

}  // namespace e2beval::server

// The code interpreter of a sandbox (E2B's port 49999): POST /execute streams a cell's events as NDJSON with
// keepalives; /contexts creates, lists, restarts and removes contexts; /health. A client that closes its
// connection during /execute interrupts the cell, as E2B's server does.
#pragma once

#include <memory>

#include <boost/asio/awaitable.hpp>

#include "server/http_exchange.hpp"
#include "server/server_context.hpp"

namespace e2beval::server {

boost::asio::awaitable<void> serve_code_interpreter(ServerContext& context, Exchange& exchange,
                                                    std::shared_ptr<ServedSandbox> sandbox);

}  // namespace e2beval::server

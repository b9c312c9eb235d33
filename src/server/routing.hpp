// Which part of E2B's API a request is for: sandbox traffic (E2b-Sandbox-Id and E2b-Sandbox-Port headers:
// 49999 the code interpreter, 49983 envd) or the control plane (everything else, behind the API key).
#pragma once

#include <boost/asio/awaitable.hpp>

#include "server/http_exchange.hpp"
#include "server/server_context.hpp"

namespace e2beval::server {

inline constexpr int kEnvdPort = 49983;
inline constexpr int kCodeInterpreterPort = 49999;

boost::asio::awaitable<void> route(ServerContext& context, Exchange& exchange);

}  // namespace e2beval::server

// SandboxFusion's API on e2beval serve's listener (docs/sandbox-fusion.md): requests with no E2b-Sandbox-Id
// header whose path is one of SandboxFusion's come here from routing.cpp; E2B's routes are untouched.
#pragma once

#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "server/http_exchange.hpp"

namespace e2beval::server {
struct ServerContext;
}

namespace e2beval::server::sandbox_fusion {

// `path` without its query: /run_code, /run_jupyter, /v1/ping, or one of the dataset API's.
bool is_sandbox_fusion_route(std::string_view path);

boost::asio::awaitable<void> serve_sandbox_fusion(ServerContext& context, Exchange& exchange);

}  // namespace e2beval::server::sandbox_fusion

// E2B's control plane (REST, JSON, behind X-API-KEY): create, get, list, kill, set the timeout of, and connect
// to sandboxes; each sandbox is a session of the server's backend.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "server/http_exchange.hpp"
#include "server/server_context.hpp"

namespace e2beval::server {

// The envd version the control plane reports. The SDKs turn features on by it, so it is the highest version
// whose gated features this server really implements (docs/serve.md lists the gates): 0.1.0 is the floor the
// SDKs accept; 0.1.4 gates recursive directory watching, 0.1.5 metrics and 0.2.4 disk metrics (all served).
// 0.3.0 changes what the SDK sends for command stdin (process.Process's calls beyond Start must serve it
// first); 0.4.0 (no user named) and 0.5.7 (octet-stream uploads) are accepted already (tests/serve/test_envd_versions.py).
inline constexpr const char* kReportedEnvdVersion = "0.2.4";

boost::asio::awaitable<void> serve_control_plane(ServerContext& context, Exchange& exchange);

}  // namespace e2beval::server

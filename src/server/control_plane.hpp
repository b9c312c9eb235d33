// E2B's control plane (REST, JSON, behind X-API-KEY): create, get, list, kill, set the timeout of, and connect
// to sandboxes; each sandbox is a session of the server's backend.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "server/http_exchange.hpp"
#include "server/server_context.hpp"

namespace e2beval::server {

// The envd version the control plane reports. The SDKs turn features on by it, so it is the highest version
// whose gated features this server really implements (docs/serve.md lists the gates): 0.1.0 is the floor the
// SDKs accept; 0.1.4 gates recursive directory watching, 0.1.5 metrics, 0.2.4 disk metrics, 0.3.0 the command
// stdin flag (sent as given), 0.4.0 no user named, 0.5.2 close_stdin, 0.5.7 octet-stream uploads: all served
// (tests/serve/test_envd_versions.py). The next gate, 0.6.2 (file metadata on write), is not.
inline constexpr const char* kReportedEnvdVersion = "0.5.7";

boost::asio::awaitable<void> serve_control_plane(ServerContext& context, Exchange& exchange);

}  // namespace e2beval::server

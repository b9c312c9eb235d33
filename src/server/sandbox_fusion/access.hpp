// Who may call SandboxFusion's routes. Its clients send no credentials, so by default only loopback clients are
// answered; with a token (e2beval serve --sandbox-fusion-token-file, or $E2BEVAL_SANDBOX_FUSION_TOKEN) every
// client, loopback included, must send `Authorization: Bearer <token>` (a reverse proxy on the same host arrives
// from loopback, so loopback cannot be trusted once the routes are meant for the network). docs/sandbox-fusion.md.
#pragma once

#include <optional>
#include <string>

#include "server/http_exchange.hpp"

namespace e2beval::server::sandbox_fusion {

// The client's address as text ("127.0.0.1", "::1"; an IPv4 client of an IPv6 listener as IPv4): the fair
// queue's key too.
std::string client_address(Exchange& exchange);

// The 401/403 to answer instead of serving `exchange`, or nothing when it may be served. `token` empty: loopback only.
std::optional<Response> refuse_without_access(Exchange& exchange, const std::string& token);

}  // namespace e2beval::server::sandbox_fusion

// The control plane's GET /sandboxes/{id}/metrics (the SDKs' get_metrics): one SandboxMetric measured at the
// call from the session's usage (Session::usage), CPU use over a short window.
#pragma once

#include "server/http_exchange.hpp"
#include "server/sandbox_store.hpp"

namespace e2beval::server {

// Blocks for the CPU window (about 250 ms): call it on a call thread. 404 when the sandbox ended meanwhile.
Response sandbox_metrics(const ServedSandbox& sandbox);

}  // namespace e2beval::server

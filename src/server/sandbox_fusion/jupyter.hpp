// SandboxFusion's /run_jupyter (sandbox/runners/jupyter.py): the cells of one request run in order in one e2beval
// Python session (its code context keeps state between cells), each cell's stdout, stderr, displayed results and
// error collected; the session is killed at the end whatever happens. docs/sandbox-fusion.md.
#pragma once

#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include "server/sandbox_fusion/requests.hpp"

namespace e2beval::server {
struct ServerContext;
}

namespace e2beval::server::sandbox_fusion {

// The RunJupyterResponse as JSON (`{status, message, driver, cells, executor_pod_name, files}`), after waiting its
// turn in the fair queue under `client`. Throws QueueFull, and operation_aborted when cancelled.
boost::asio::awaitable<boost::json::object> run_jupyter(ServerContext& context, RunJupyterRequest request, std::string client);

}  // namespace e2beval::server::sandbox_fusion

// Routing by the sandbox headers, then by path (in control_plane.cpp, code_interpreter.cpp, envd.cpp).
#include "server/routing.hpp"

#include "server/code_interpreter.hpp"
#include "server/control_plane.hpp"
#include "server/envd.hpp"
#include "server/plan.hpp"
#include "server/sandbox_access.hpp"
#include "server/sandbox_fusion/routes.hpp"

namespace e2beval::server {

boost::asio::awaitable<void> route(ServerContext& context, Exchange& exchange) {
    const auto sandbox_id = exchange.header("E2b-Sandbox-Id");
    if (sandbox_id.empty()) {
        if (auto signer = sandbox_of_signed_file_url(exchange, context.sandboxes)) {
            if (auto refusal = refuse_without_access(exchange, *signer, false))
                co_return co_await carry_out(context, exchange, Plan(std::move(*refusal)));
            co_return co_await serve_envd(context, exchange, signer);
        }
        // SandboxFusion's API (docs/sandbox-fusion.md): its paths are none of E2B's control plane's.
        if (sandbox_fusion::is_sandbox_fusion_route(exchange.request().target()))
            co_return co_await sandbox_fusion::serve_sandbox_fusion(context, exchange);
        co_return co_await serve_control_plane(context, exchange);
    }
    const auto port_header = exchange.header("E2b-Sandbox-Port");
    const bool code_interpreter = port_header == std::to_string(kCodeInterpreterPort);
    if (!code_interpreter && !port_header.empty() && port_header != std::to_string(kEnvdPort)) {
        co_return co_await carry_out(context, exchange, Plan(error_response(http::status::bad_gateway,
                                               "port " + std::string(port_header) + " of sandbox " + std::string(sandbox_id) +
                                                   " is not open: e2beval serve serves 49983 (envd) and 49999 (code interpreter)")));
    }
    auto sandbox = context.sandboxes.find(std::string(sandbox_id));
    if (!sandbox) {
        // E2B's proxy answers 502 for a sandbox that is gone; the SDKs read "was not found" in the message as
        // "killed or past its timeout" (SandboxNotRunningException, is_running() false).
        co_return co_await carry_out(context, exchange, Plan(error_response(http::status::bad_gateway,
                                       "The sandbox " + std::string(sandbox_id) +
                                           " was not found: it was killed, reached its timeout, or never existed on this server")));
    }
    // Only after the lookup, as E2B's proxy does: a sandbox that is gone is 502 for everyone.
    if (auto refusal = refuse_without_access(exchange, *sandbox, code_interpreter))
        co_return co_await carry_out(context, exchange, Plan(std::move(*refusal)));
    if (code_interpreter)
        co_await serve_code_interpreter(context, exchange, sandbox);
    else
        co_await serve_envd(context, exchange, sandbox);
}

}  // namespace e2beval::server

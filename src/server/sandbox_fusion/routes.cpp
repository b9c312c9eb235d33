// SandboxFusion's routes: the access check, then /v1/ping, /run_code, /run_jupyter, and the dataset API's routes
// (dataset_routes.cpp). A run is cancelled (it leaves the queue, or its sandbox is killed) when its client goes away.
#include "server/sandbox_fusion/routes.hpp"

#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include "server/plan.hpp"
#include "server/sandbox_fusion/access.hpp"
#include "server/sandbox_fusion/client_wait.hpp"
#include "server/sandbox_fusion/dataset_routes.hpp"
#include "server/sandbox_fusion/fair_queue.hpp"
#include "server/sandbox_fusion/jupyter.hpp"
#include "server/sandbox_fusion/requests.hpp"
#include "server/sandbox_fusion/run_code.hpp"
#include "server/sandbox_fusion/validation.hpp"
#include "server/server_context.hpp"

namespace e2beval::server::sandbox_fusion {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::string_view route_path(std::string_view target) { return target.substr(0, target.find('?')); }

Response method_not_allowed(std::string_view allowed) {
    auto response = detail_response(http::status::method_not_allowed, "Method Not Allowed");
    response.headers.emplace_back("Allow", std::string(allowed));
    return response;
}

// The answer of a run the client waits for: the run's JSON, 503 past the queue, or (the client gone) a 503 the
// connection is closed after.
template <typename Result, typename Shape>
asio::awaitable<Response> answer_of_run(Exchange& exchange, asio::awaitable<Result> run, Shape shape) {
    std::optional<Response> answer;
    try {
        auto result = co_await while_client_waits(exchange, std::move(run));
        answer = json_response(http::status::ok, shape(result));
    } catch (const QueueFull& full) {
        answer = queue_full_response(full);
    } catch (const boost::system::system_error& failure) {
        if (failure.code() != asio::error::operation_aborted) throw;
        exchange.close_after();  // the client is gone: nobody reads an answer
        answer = detail_response(http::status::service_unavailable, "the client went away before its run");
    }
    co_return std::move(*answer);
}

asio::awaitable<void> serve_run_code(ServerContext& context, Exchange& exchange) {
    auto parsed = parse_run_code_request(exchange.request().body(), context.options.sandbox_fusion);
    if (auto* refusal = std::get_if<Response>(&parsed)) co_return co_await carry_out(context, exchange, Plan(std::move(*refusal)));
    auto client = client_address(exchange);
    auto run = run_code(context, std::move(std::get<RunCodeRequest>(parsed)), std::move(client));
    Response answer = co_await answer_of_run(exchange, std::move(run), [](const RunCodeResponse& response) { return json::value(to_json(response)); });
    co_await carry_out(context, exchange, Plan(std::move(answer)));
}

asio::awaitable<void> serve_run_jupyter(ServerContext& context, Exchange& exchange) {
    auto parsed = parse_run_jupyter_request(exchange.request().body(), context.options.sandbox_fusion);
    if (auto* refusal = std::get_if<Response>(&parsed)) co_return co_await carry_out(context, exchange, Plan(std::move(*refusal)));
    auto client = client_address(exchange);
    auto run = run_jupyter(context, std::move(std::get<RunJupyterRequest>(parsed)), std::move(client));
    Response answer = co_await answer_of_run(exchange, std::move(run), [](const json::object& response) { return json::value(response); });
    co_await carry_out(context, exchange, Plan(std::move(answer)));
}

Response pong() { return json_response(http::status::ok, json::value("pong")); }

}  // namespace

bool is_sandbox_fusion_route(std::string_view target) {
    const auto path = route_path(target);
    return path == "/run_code" || path == "/run_jupyter" || path == "/v1/ping" || is_dataset_route(path);
}

asio::awaitable<void> serve_sandbox_fusion(ServerContext& context, Exchange& exchange) {
    if (auto refusal = refuse_without_access(exchange, context.options.sandbox_fusion.token))
        co_return co_await carry_out(context, exchange, Plan(std::move(*refusal)));
    const auto path = route_path(exchange.request().target());
    const auto method = exchange.request().method();
    if (path == "/v1/ping") {
        if (method != http::verb::get && method != http::verb::head)
            co_return co_await carry_out(context, exchange, Plan(method_not_allowed("GET")));
        co_return co_await carry_out(context, exchange, Plan(pong()));
    }
    if (path == "/run_code" || path == "/run_jupyter") {
        if (method != http::verb::post)
            co_return co_await carry_out(context, exchange, Plan(method_not_allowed("POST")));
        if (path == "/run_code") co_return co_await serve_run_code(context, exchange);
        co_return co_await serve_run_jupyter(context, exchange);
    }
    co_await serve_dataset_route(context, exchange, client_address(exchange));
}

}  // namespace e2beval::server::sandbox_fusion

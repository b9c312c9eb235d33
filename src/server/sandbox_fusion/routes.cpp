// SandboxFusion's routes: the access check, then /v1/ping, /run_code, /run_jupyter, and the dataset API's routes
// (dataset_routes.cpp). A run is cancelled (it leaves the queue, or its sandbox is killed) when its client goes away.
#include "server/sandbox_fusion/routes.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include "server/client_watch.hpp"
#include "server/plan.hpp"
#include "server/sandbox_fusion/access.hpp"
#include "server/sandbox_fusion/dataset_routes.hpp"
#include "server/sandbox_fusion/fair_queue.hpp"
#include "server/sandbox_fusion/jupyter.hpp"
#include "server/sandbox_fusion/requests.hpp"
#include "server/sandbox_fusion/run_code.hpp"
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

// Past the queue's bound: 503 with Retry-After (the official client retries it; verl scores it as a failed
// case at once, which is why the bound is large: docs/sandbox-fusion.md).
Response queue_full(const QueueFull& full) {
    auto response = detail_response(http::status::service_unavailable, full.what());
    response.headers.emplace_back("Retry-After", "1");
    return response;
}

template <typename Result>
struct Completion {
    std::optional<Result> value;
    std::exception_ptr failure;
};

// Runs `work` while the client waits for its answer; cancels it (terminal) when the client closes its connection.
// The value, or the exception `work` ended with (operation_aborted when the client went away).
template <typename Result>
asio::awaitable<Result> while_client_waits(Exchange& exchange, asio::awaitable<Result> work) {
    auto io = co_await asio::this_coro::executor;
    auto done = std::make_shared<Completion<Result>>();
    auto wake = std::make_shared<asio::steady_timer>(io, asio::steady_timer::time_point::max());
    asio::cancellation_signal gone;
    ClientWatch watch(exchange.stream().socket(), [&gone] { gone.emit(asio::cancellation_type::terminal); });
    asio::co_spawn(io, std::move(work),
                   asio::bind_cancellation_slot(gone.slot(), [done, wake](std::exception_ptr failure, Result value) {
                       if (failure) done->failure = failure;
                       else done->value.emplace(std::move(value));
                       wake->cancel();
                   }));
    while (!done->value && !done->failure) co_await wake->async_wait(asio::as_tuple(asio::use_awaitable));
    watch.stop();
    if (done->failure) std::rethrow_exception(done->failure);
    co_return std::move(*done->value);
}

asio::awaitable<void> serve_run_code(ServerContext& context, Exchange& exchange) {
    auto parsed = parse_run_code_request(exchange.request().body(), context.options.sandbox_fusion);
    if (auto* refusal = std::get_if<Response>(&parsed)) co_return co_await carry_out(context, exchange, Plan(std::move(*refusal)));
    auto client = client_address(exchange);
    std::optional<Response> answer;
    try {
        auto response = co_await while_client_waits(
            exchange, run_code(context, std::move(std::get<RunCodeRequest>(parsed)), std::move(client)));
        answer = json_response(http::status::ok, to_json(response));
    } catch (const QueueFull& full) {
        answer = queue_full(full);
    } catch (const boost::system::system_error& failure) {
        if (failure.code() != asio::error::operation_aborted) throw;
        exchange.close_after();  // the client is gone: nobody reads an answer
        answer = detail_response(http::status::service_unavailable, "the client went away before its run");
    }
    co_await carry_out(context, exchange, Plan(std::move(*answer)));
}

asio::awaitable<void> serve_run_jupyter(ServerContext& context, Exchange& exchange) {
    auto parsed = parse_run_jupyter_request(exchange.request().body(), context.options.sandbox_fusion);
    if (auto* refusal = std::get_if<Response>(&parsed)) co_return co_await carry_out(context, exchange, Plan(std::move(*refusal)));
    auto client = client_address(exchange);
    std::optional<Response> answer;
    try {
        auto response = co_await while_client_waits(
            exchange, run_jupyter(context, std::move(std::get<RunJupyterRequest>(parsed)), std::move(client)));
        answer = json_response(http::status::ok, response);
    } catch (const QueueFull& full) {
        answer = queue_full(full);
    } catch (const boost::system::system_error& failure) {
        if (failure.code() != asio::error::operation_aborted) throw;
        exchange.close_after();
        answer = detail_response(http::status::service_unavailable, "the client went away before its run");
    }
    co_await carry_out(context, exchange, Plan(std::move(*answer)));
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

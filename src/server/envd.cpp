// envd's routes.
#include "server/envd.hpp"

#include "server/connect_protocol.hpp"
#include "server/envd_process_calls.hpp"

namespace e2beval::server {

Plan plan_envd(ServerContext& context, Exchange& exchange, const std::shared_ptr<ServedSandbox>& sandbox) {
    const auto target = exchange.request().target();
    std::string path(target.data(), target.size());
    path = path.substr(0, path.find('?'));
    const auto method = exchange.request().method();
    if (path == "/health") {
        Response response;
        response.status = http::status::no_content;
        response.content_type.clear();
        return response;
    }
    if (path == "/files" && (method == http::verb::get || method == http::verb::post)) return plan_files(context, exchange, sandbox);
    if ((path == "/process.Process/Start" || path == "/process.Process/Connect") && method == http::verb::post) return Streaming{};
    if (path == "/filesystem.Filesystem/WatchDir" && method == http::verb::post) return Streaming{};
    if (constexpr std::string_view process = "/process.Process/"; path.starts_with(process))
        if (auto plan = plan_process_call(exchange, sandbox, std::string_view(path).substr(process.size()))) return std::move(*plan);
    if (constexpr std::string_view filesystem = "/filesystem.Filesystem/"; path.starts_with(filesystem)) {
        if (auto plan = plan_filesystem(exchange, sandbox, std::string_view(path).substr(filesystem.size()))) return std::move(*plan);
        if (auto plan = plan_watcher_call(exchange, sandbox, std::string_view(path).substr(filesystem.size()))) return std::move(*plan);
    }
    if (path.starts_with("/process.Process/") || path.starts_with("/filesystem.Filesystem/")) {
        const bool streaming = exchange.request()[http::field::content_type].starts_with("application/connect+");
        const std::string message = "e2beval serve does not offer " + path.substr(1) + " yet (docs/serve.md lists what it serves)";
        if (!streaming) return connect_error("unimplemented", message);
        // A streaming call's error travels in its end-of-stream message, after a 200.
        Response response;
        response.content_type = "application/connect+json";
        response.body = connect_end_of_stream(std::make_pair(std::string("unimplemented"), message));
        return response;
    }
    return error_response(http::status::not_found, "no such route on envd: " + path);
}

Plan plan_unary_connect_call(Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, std::string_view name,
                             UnaryConnectCall handler) {
    if (exchange.request().method() != http::verb::post)
        return connect_error("invalid_argument", std::string(name) + " is called with POST");
    if (exchange.request()[http::field::content_type].starts_with("application/connect+"))
        return connect_error("invalid_argument",
                             std::string(name) + " is a unary call: send it as application/json, not enveloped");
    auto message = connect_request_message(exchange.request());
    if (auto* problem = std::get_if<std::string>(&message)) return connect_error("invalid_argument", *problem);
    return std::function<Response()>([handler, sandbox, request = std::get<boost::json::object>(std::move(message))] {
        return handler(sandbox, request);
    });
}

boost::asio::awaitable<void> serve_envd(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox) {
    auto plan = plan_envd(context, exchange, sandbox);
    if (!std::holds_alternative<Streaming>(plan)) co_await carry_out(context, exchange, std::move(plan));
    else if (exchange.request().target().starts_with("/filesystem.Filesystem/WatchDir")) co_await serve_watch_dir(context, exchange, sandbox);
    else if (exchange.request().target().starts_with("/process.Process/Connect")) co_await serve_process_connect(context, exchange, sandbox);
    else co_await serve_process_start(context, exchange, sandbox);
}

}  // namespace e2beval::server

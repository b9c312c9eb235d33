// The code interpreter's routes over session requests (docs/session-protocol.md, "Code contexts"): run_code,
// create_context, list_contexts, restart_context, remove_context.
#include "server/code_interpreter.hpp"

#include <boost/json.hpp>

#include "server/client_watch.hpp"
#include "server/plan.hpp"
#include "server/request_json.hpp"
#include "server/session_failures.hpp"
#include "server/streaming_call.hpp"
#include "core/session_protocol.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {

// Often enough that a client's proxy never takes the stream for idle.
constexpr std::chrono::milliseconds kKeepaliveInterval{5000};
// The status waits this long for the first event, so that a request the session refuses at once (an unknown
// context) gets its own status (404, 400) instead of an error inside a 200 stream.
constexpr std::chrono::milliseconds kFirstEventWait{250};

std::string ndjson(const json::object& object) { return json::serialize(object) + "\n"; }
// Built outside the coroutines: GCC 12 cannot brace-initialise from string literals inside one.
std::string keepalive_line() { return ndjson({{"type", "keepalive"}}); }
std::string end_of_execution_line() { return ndjson({{"type", "end_of_execution"}}); }
std::string sandbox_error_line(const std::string& message) {
    return ndjson({{"type", "error"}, {"name", "SandboxError"}, {"value", message}, {"traceback", ""}});
}

// A result's text as E2B's server gives it: it takes a kernel's text/plain and drops one pair of quotes around
// it, so a cell ending in the string 'hi' has the text `hi`, not the repr `'hi'` the session reports (SDK users
// compare `execution.text` with the string itself). Only a pair: a text that merely starts with a quote stays.
void unquote_text(json::object& result) {
    auto* text = result.if_contains("text");
    if (!text || !text->is_string()) return;
    const std::string_view view = text->as_string();
    if (view.size() >= 2 && (view.front() == '\'' || view.front() == '"') && view.back() == view.front())
        *text = view.substr(1, view.size() - 2);
}

// A session event as the line E2B's server sends, or nothing for the events it has no line for.
std::optional<json::object> execute_line(json::object event) {
    event.erase("id");
    const auto* type = event.if_contains("type");
    if (!type || !type->is_string()) return std::nullopt;
    const auto& name = type->as_string();
    if (name == "result") {
        unquote_text(event);
        return event;
    }
    if (name == "stdout" || name == "stderr" || name == "error" || name == "number_of_executions")
        return event;
    return std::nullopt;  // "timeout": /execute has no cell limit of its own, the client's timeout closes the connection
}


// The run_code request for an /execute body, or the 400 to answer instead.
std::variant<json::object, Response> execute_request(const Exchange& exchange) {
    auto parsed = parse_body_object(exchange.request().body());
    if (auto* problem = std::get_if<std::string>(&parsed)) return error_response(http::status::bad_request, *problem);
    const auto& body = std::get<json::object>(parsed);
    const auto* code = body.if_contains("code");
    if (!code || !code->is_string())
        return error_response(http::status::bad_request, "\"code\" (a string) is required");
    json::object request = session_request(session_op::run_code, "code", code->as_string());
    const auto* context_id = body.if_contains("context_id");
    const auto* language = body.if_contains("language");
    const bool has_context = context_id && !context_id->is_null();
    const bool has_language = language && !language->is_null();
    if (has_context && has_language)
        return error_response(http::status::bad_request, "give \"context_id\" or \"language\", not both");
    if (has_context) {
        if (!context_id->is_string()) return error_response(http::status::bad_request, "\"context_id\" must be a string");
        request["context"] = context_id->as_string();
    }
    if (has_language) {
        if (!language->is_string()) return error_response(http::status::bad_request, "\"language\" must be a string");
        request["language"] = language->as_string();
    }
    auto envs = string_map_field(body, "env_vars", "\"env_vars\"");
    if (auto* problem = std::get_if<std::string>(&envs)) return error_response(http::status::bad_request, *problem);
    if (const auto& map = std::get<std::map<std::string, std::string>>(envs); !map.empty()) {
        json::object object;
        for (const auto& [name, value] : map) object[name] = value;
        request["envs"] = std::move(object);
    }

    return request;
}

boost::asio::awaitable<void> execute(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, json::object request) {
    auto pipe = start_streaming_call(exchange.stream().get_executor(), sandbox, std::move(request));
    ClientWatch watch(exchange.stream().socket(), [pipe] { abandon_streaming_call(pipe); });
    bool started = false;
    auto wait = kFirstEventWait;
    for (;;) {
        auto next = co_await pipe->next(wait);
        wait = kKeepaliveInterval;
        if (std::holds_alternative<CallEvents::Tick>(next)) {
            if (!started && !(started = co_await exchange.start_stream(http::status::ok, "application/x-ndjson"))) break;
            if (!co_await exchange.write_chunk(keepalive_line())) break;
            continue;
        }
        if (std::holds_alternative<CallEvents::Ended>(next)) {
            if (pipe->abandoned()) break;  // the client is gone: nobody to answer
            // The call threw (the sandbox was killed or timed out mid-cell): before the status line that is an
            // error status; after it, the stream ends without its last chunk, and the SDK asks /health, which
            // says the sandbox is gone.
            if (!started) co_await exchange.reply(call_exception_response(pipe->failure(), sandbox->session->id()));
            break;
        }
        auto event = json::parse(std::get<std::string>(next)).as_object();
        if (is_final_event(event)) {
            const auto* type = event.if_contains("type");
            if (type->as_string() == "failure") {
                if (!started) {
                    co_await exchange.reply(error_response(failure_status(event), failure_message(event)));
                    break;
                }
                // Past the status line: an error line the SDK shows as the execution's error.
                co_await exchange.write_chunk(sandbox_error_line(failure_message(event)));
            }
            if (!started && !(started = co_await exchange.start_stream(http::status::ok, "application/x-ndjson"))) break;
            if (co_await exchange.write_chunk(end_of_execution_line())) co_await exchange.finish_stream();
            break;
        }
        auto line = execute_line(std::move(event));
        if (!line) continue;
        if (!started && !(started = co_await exchange.start_stream(http::status::ok, "application/x-ndjson"))) break;
        if (!co_await exchange.write_chunk(ndjson(*line))) break;
    }
    if (!exchange.answered()) exchange.close_after();
    if (exchange.stream_unfinished()) {
        // The client is gone or the stream broke: make sure the cell does not run on for nobody.
        abandon_streaming_call(pipe);
    }
}


json::object context_json(const json::value& context) {
    json::object object;
    if (!context.is_object()) return object;
    for (const char* key : {"id", "language", "cwd"})
        if (const auto* value = context.as_object().if_contains(key)) object[key] = *value;
    return object;
}


// A route answered by one session request, awaited on the I/O thread: the reply shaped by `shape`, or the failure.
boost::asio::awaitable<Response> answer_unary(std::shared_ptr<ServedSandbox> sandbox, json::object request,
                                              std::function<Response(const json::object&)> shape) {
    auto answer = co_await await_unary_call(std::move(sandbox), std::move(request));
    if (auto* failure = std::get_if<Response>(&answer)) co_return std::move(*failure);
    co_return shape(std::get<json::object>(answer));
}

Plan unary_plan(std::shared_ptr<ServedSandbox> sandbox, json::object request, std::function<Response(const json::object&)> shape) {
    return Awaited([sandbox, request = std::move(request), shape = std::move(shape)]() {
        return answer_unary(sandbox, request, shape);
    });
}

Plan plan_code_interpreter(Exchange& exchange, const std::shared_ptr<ServedSandbox>& sandbox) {
    const auto method = exchange.request().method();
    const auto target = exchange.request().target();
    std::string path(target.data(), target.size());
    path = path.substr(0, path.find('?'));
    if (path == "/health") {
        Response response;
        response.content_type = "text/plain";
        response.body = "OK";
        return response;
    }
    if (path == "/execute" && method == http::verb::post) return Streaming{};
    if (path == "/contexts" && method == http::verb::post) {
        auto parsed = parse_body_object(exchange.request().body());
        if (auto* problem = std::get_if<std::string>(&parsed)) return error_response(http::status::bad_request, *problem);
        const auto& body = std::get<json::object>(parsed);
        json::object request = session_request(session_op::create_context);
        for (const char* key : {"language", "cwd"})
            if (const auto* value = body.if_contains(key)) request[key] = *value;
        return unary_plan(sandbox, std::move(request), [](const json::object& reply) {
            return json_response(http::status::ok, context_json(reply.contains("context") ? reply.at("context") : json::value()));
        });
    }
    if (path == "/contexts" && method == http::verb::get) {
        return unary_plan(sandbox, session_request(session_op::list_contexts), [](const json::object& reply) {
            json::array contexts;
            if (const auto* list = reply.if_contains("contexts"); list && list->is_array())
                for (const auto& item : list->as_array()) contexts.push_back(context_json(item));
            return json_response(http::status::ok, contexts);
        });
    }
    constexpr std::string_view kContexts = "/contexts/";
    if (path.starts_with(kContexts)) {
        auto rest = path.substr(kContexts.size());
        const bool restart = rest.ends_with("/restart") && method == http::verb::post;
        if (restart) rest = rest.substr(0, rest.size() - std::string_view("/restart").size());
        if (!rest.empty() && rest.find('/') == std::string::npos && (restart || method == http::verb::delete_)) {
            return unary_plan(sandbox, session_request(restart ? session_op::restart_context : session_op::remove_context, "context", rest), [restart](const json::object&) {
                Response response;
                response.status = restart ? http::status::ok : http::status::no_content;
                if (restart) response.body = "{}";
                else response.content_type.clear();
                return response;
            });
        }
    }
    return error_response(http::status::not_found, "no such route on the code interpreter: " + std::string(http::to_string(method)) + " " + path);
}

}  // namespace

boost::asio::awaitable<void> serve_code_interpreter(ServerContext& context, Exchange& exchange,
                                                    std::shared_ptr<ServedSandbox> sandbox) {
    auto plan = plan_code_interpreter(exchange, sandbox);
    if (!std::holds_alternative<Streaming>(plan)) co_return co_await carry_out(context, exchange, std::move(plan));
    auto prepared = execute_request(exchange);
    if (std::holds_alternative<Response>(prepared)) co_return co_await carry_out(context, exchange, Plan(std::get<Response>(std::move(prepared))));
    co_await execute(context, exchange, sandbox, std::get<json::object>(std::move(prepared)));
}

}  // namespace e2beval::server

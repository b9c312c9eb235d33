// process.Process/Start over a session's run_command (foreground): the Connect stream of start, data and end
// events, with keepalives; a client that goes away kills the command. The command line the SDK sends
// (`/bin/bash -l -c CMD`) is run exactly, each word shell-quoted, by the session's `/bin/bash -c`.
#include <boost/json.hpp>

#include "core/base64.hpp"
#include "server/client_watch.hpp"
#include "server/connect_protocol.hpp"
#include "server/envd.hpp"
#include "server/session_failures.hpp"
#include "server/streaming_call.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {

constexpr std::chrono::milliseconds kDefaultKeepalive{50'000};  // the SDKs ask for 50 s (Keepalive-Ping-Interval)

std::string shell_quoted(std::string_view word) {
    std::string quoted = "'";
    for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string string_of(const json::object& object, std::string_view key) {
    if (const auto* value = object.if_contains(key); value && value->is_string()) return std::string(value->as_string());
    return {};
}

// The session request for a StartRequest, or a message for an invalid_argument error.
std::variant<json::object, std::string> run_command_request(const json::object& start, std::string_view timeout_ms_header) {
    const auto* process_field = start.if_contains("process");
    if (!process_field || !process_field->is_object()) return std::string("StartRequest.process is required");
    const auto& process = process_field->as_object();
    const auto cmd = string_of(process, "cmd");
    if (cmd.empty()) return std::string("process.cmd is required");
    std::string line = "exec " + shell_quoted(cmd);
    if (const auto* args = process.if_contains("args"); args && args->is_array())
        for (const auto& arg : args->as_array()) {
            if (!arg.is_string()) return std::string("process.args must be strings");
            line += " " + shell_quoted(arg.as_string());
        }
    json::object request{{"op", "run_command"}, {"cmd", line}, {"background", false}};
    if (const auto* envs = process.if_contains("envs"); envs && envs->is_object()) {
        for (const auto& [name, value] : envs->as_object())
            if (!value.is_string()) return std::string("process.envs values must be strings");
        request["envs"] = envs->as_object();
    }
    if (const auto cwd = string_of(process, "cwd"); !cwd.empty()) request["cwd"] = cwd;
    const auto* stdin_field = start.if_contains("stdin");
    request["stdin"] = stdin_field && stdin_field->is_bool() && stdin_field->as_bool();
    // Connect-Timeout-Ms is the SDK's command timeout; without it the command has none (E2B's timeout=0).
    double timeout_seconds = 0;
    if (!timeout_ms_header.empty()) {
        try {
            timeout_seconds = std::stod(std::string(timeout_ms_header)) / 1000.0;
        } catch (const std::exception&) {
            return std::string("Connect-Timeout-Ms must be a number of milliseconds");
        }
    }
    request["timeout"] = timeout_seconds;
    return request;
}

// The envelopes of a ProcessEvent stream (StartResponse {"event": {...}}).
std::string keepalive_envelope() { return connect_envelope({{"event", {{"keepalive", json::object{}}}}}); }
std::string start_envelope(const json::object& event) {
    return connect_envelope({{"event", {{"start", {{"pid", event.contains("pid") ? event.at("pid") : json::value(0)}}}}}});
}
std::string data_envelope(const std::string& stream, const std::string& text) {
    return connect_envelope({{"event", {{"data", {{stream, base64_encode(text)}}}}}});
}
// The end of the command, and of the stream: a command killed at its timeout is Connect's deadline_exceeded,
// which the SDKs raise as TimeoutException, as against E2B.
std::string end_envelopes(const json::object& event) {
    const auto* timed_out = event.if_contains("timed_out");
    if (timed_out && timed_out->is_bool() && timed_out->as_bool())
        return connect_end_of_stream(std::make_pair(std::string("deadline_exceeded"), std::string("the command ran past its timeout and was killed")));
    const auto* exit_code = event.if_contains("exit_code");
    const auto error = string_of(event, "error");
    json::object end{{"exitCode", exit_code && exit_code->is_int64() ? exit_code->as_int64() : -1},
                     {"exited", !error.starts_with("signal:")},
                     {"status", error.empty() ? std::string("exit status 0") : error}};
    if (!error.empty()) end["error"] = error;
    return connect_envelope({{"event", {{"end", std::move(end)}}}}) + connect_end_of_stream();
}

}  // namespace

boost::asio::awaitable<void> serve_process_start(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox) {
    const bool streaming = exchange.request()[http::field::content_type].starts_with("application/connect+");
    auto message = connect_request_message(exchange.request());
    std::variant<json::object, std::string> request = std::string();
    if (auto* problem = std::get_if<std::string>(&message)) request = *problem;
    else request = run_command_request(std::get<json::object>(message), exchange.header("Connect-Timeout-Ms"));
    if (!streaming)
        { co_await exchange.reply(connect_error("invalid_argument", "process.Process/Start is a server-streaming call: send it as application/connect+json")); co_return; }
    if (!co_await exchange.start_stream(http::status::ok, "application/connect+json")) co_return;
    if (auto* problem = std::get_if<std::string>(&request)) {
        if (co_await exchange.write_chunk(connect_end_of_stream(std::make_pair(std::string("invalid_argument"), *problem))))
            co_await exchange.finish_stream();
        co_return;
    }
    auto keepalive = kDefaultKeepalive;
    if (const auto header = exchange.header("Keepalive-Ping-Interval"); !header.empty()) {
        try {
            keepalive = std::clamp(std::chrono::milliseconds(static_cast<long long>(std::stod(std::string(header)) * 1000)),
                                   std::chrono::milliseconds(1000), kDefaultKeepalive);
        } catch (const std::exception&) {
        }
    }

    auto pipe = start_streaming_call(context.calls, exchange.stream().get_executor(), sandbox, std::get<json::object>(std::move(request)));
    ClientWatch watch(exchange.stream().socket(), [pipe, sandbox] { abandon_streaming_call(pipe, *sandbox); });
    for (;;) {
        auto next = co_await pipe->next(keepalive);
        if (std::holds_alternative<EventPipe::Tick>(next)) {
            if (!co_await exchange.write_chunk(keepalive_envelope())) break;
            continue;
        }
        if (std::holds_alternative<EventPipe::Ended>(next)) {
            if (pipe->abandoned()) break;
            // The sandbox ended mid-command: the proxy's wording, so the SDK says it is gone.
            const auto failure = call_exception_response(pipe->failure(), sandbox->session->id());
            const auto body = json::parse(failure.body).as_object();
            if (co_await exchange.write_chunk(connect_end_of_stream(std::make_pair(
                    std::string(failure.status == http::status::bad_gateway ? "unavailable" : "internal"), string_of(body, "message")))))
                co_await exchange.finish_stream();
            break;
        }
        const auto event = json::parse(std::get<std::string>(next)).as_object();
        const auto type = string_of(event, "type");
        std::optional<std::string> chunk;
        if (type == "start") {
            chunk = start_envelope(event);
        } else if (type == "stdout" || type == "stderr") {
            chunk = data_envelope(type, string_of(event, "text"));
        } else if (type == "end") {
            chunk = end_envelopes(event);
        } else if (type == "failure") {
            chunk = connect_end_of_stream(std::make_pair(connect_code_of_failure(event), string_of(event, "message")));
        }
        if (!chunk) continue;
        if (!co_await exchange.write_chunk(*chunk)) break;
        if (is_final_event(event)) {
            co_await exchange.finish_stream();
            break;
        }
    }
    if (exchange.stream_unfinished()) {
        exchange.close_after();
        abandon_streaming_call(pipe, *sandbox);
    }
}

}  // namespace e2beval::server

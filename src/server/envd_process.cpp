// The streaming calls of process.Process: Start over a session's run_command (foreground: this request follows
// the command) and Connect over command_wait (another follower of a running command), each a Connect stream
// of start, data and end events with keepalives. As envd does, a client that goes away leaves the process
// running (the request detaches from it; docs/serve.md). The process the SDK asks for (`/bin/bash` with
// `-l -c CMD`) is run exactly: the program and its arguments, no shell around it.
#include <boost/json.hpp>

#include "core/base64.hpp"
#include "server/client_watch.hpp"
#include "server/connect_protocol.hpp"
#include "server/envd.hpp"
#include "server/session_failures.hpp"
#include "server/streaming_call.hpp"
#include "server/envd_process_calls.hpp"
#include "server/request_json.hpp"
#include "core/session_protocol.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {

constexpr std::chrono::milliseconds kDefaultKeepalive{50'000};  // the SDKs ask for 50 s (Keepalive-Ping-Interval)

// The session request for a StartRequest, or a message for an invalid_argument error.
std::variant<json::object, std::string> run_command_request(const json::object& start, std::string_view timeout_ms_header) {
    const auto* process_field = start.if_contains("process");
    if (!process_field || !process_field->is_object()) return std::string("StartRequest.process is required");
    const auto& process = process_field->as_object();
    const auto cmd = string_field(process, "cmd");
    if (cmd.empty()) return std::string("process.cmd is required");
    json::array args;
    if (const auto* given = process.if_contains("args"); given && given->is_array())
        for (const auto& arg : given->as_array()) {
            if (!arg.is_string()) return std::string("process.args must be strings");
            args.push_back(arg);
        }
    json::object request{{"op", session_op::run_command}, {"cmd", cmd}, {"args", std::move(args)}, {"background", false}};
    if (const auto* tag = start.if_contains("tag"); tag && tag->is_string()) request["tag"] = tag->as_string();
    if (const auto* envs = process.if_contains("envs"); envs && envs->is_object()) {
        for (const auto& [name, value] : envs->as_object())
            if (!value.is_string()) return std::string("process.envs values must be strings");
        request["envs"] = envs->as_object();
    }
    if (const auto cwd = string_field(process, "cwd"); !cwd.empty()) request["cwd"] = cwd;
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
    const auto error = string_field(event, "error");
    json::object end{{"exitCode", exit_code && exit_code->is_int64() ? exit_code->as_int64() : -1},
                     {"exited", !error.starts_with("signal:")},
                     {"status", error.empty() ? std::string("exit status 0") : error}};
    if (!error.empty()) end["error"] = error;
    return connect_envelope({{"event", {{"end", std::move(end)}}}}) + connect_end_of_stream();
}

std::string start_envelope_of_pid(std::int64_t pid) { return start_envelope(json::object{{"pid", pid}}); }

std::chrono::milliseconds keepalive_of(Exchange& exchange) {
    auto keepalive = kDefaultKeepalive;
    if (const auto header = exchange.header("Keepalive-Ping-Interval"); !header.empty()) {
        try {
            keepalive = std::clamp(std::chrono::milliseconds(static_cast<long long>(std::stod(std::string(header)) * 1000)),
                                   std::chrono::milliseconds(1000), kDefaultKeepalive);
        } catch (const std::exception&) {
        }
    }
    return keepalive;
}

// Streams the events of `request` (run_command or command_wait) as ProcessEvents, after `first_chunk` (the
// start event Connect sends itself). A client that goes away detaches the request from the process.
boost::asio::awaitable<void> stream_process(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox,
                                            json::object request, std::string first_chunk) {
    const auto keepalive = keepalive_of(exchange);
    if (!first_chunk.empty() && !co_await exchange.write_chunk(first_chunk)) co_return;
    auto pipe = start_streaming_call(exchange.stream().get_executor(), sandbox, std::move(request));
    ClientWatch watch(exchange.stream().socket(),
                      [pipe] { abandon_streaming_call(pipe, CallInterrupt::Mode::detach); });
    for (;;) {
        auto next = co_await pipe->next(keepalive);
        if (std::holds_alternative<CallEvents::Tick>(next)) {
            if (!co_await exchange.write_chunk(keepalive_envelope())) break;
            continue;
        }
        if (std::holds_alternative<CallEvents::Ended>(next)) {
            if (pipe->abandoned()) break;
            const auto failure = call_exception_response(pipe->failure(), sandbox->session->id());
            // The sandbox ended mid-command (killed, timed out): on E2B its envd goes with it and the connection
            // breaks. So it breaks here too, with no end of stream: the SDKs then ask /health, learn that the
            // sandbox is gone (502) and say so ("The sandbox was killed or reached its end of life while the
            // request was in flight", a TimeoutException).
            if (failure.status == http::status::bad_gateway) {
                // Reset, not closed: a peer that vanishes resets its connections, and a clean close in the
                // middle of a chunked body is what the older SDKs' transport (pyqwest 0.10) reports as a protocol
                // error, not as the broken connection that makes them ask /health.
                boost::system::error_code ignored;
                exchange.stream().socket().set_option(boost::asio::socket_base::linger(true, 0), ignored);
                exchange.stream().socket().close(ignored);
                break;
            }
            const auto body = json::parse(failure.body).as_object();
            if (co_await exchange.write_chunk(connect_end_of_stream(std::make_pair(std::string("internal"), string_field(body, "message")))))
                co_await exchange.finish_stream();
            break;
        }
        const auto event = json::parse(std::get<std::string>(next)).as_object();
        const auto type = string_field(event, "type");
        std::optional<std::string> chunk;
        if (type == "start") {
            chunk = start_envelope(event);
        } else if (type == "stdout" || type == "stderr") {
            chunk = data_envelope(type, string_field(event, "text"));
        } else if (type == "end") {
            chunk = end_envelopes(event);
        } else if (type == "failure") {
            chunk = connect_end_of_stream(std::make_pair(connect_code_of_failure(event), string_field(event, "message")));
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
        abandon_streaming_call(pipe, CallInterrupt::Mode::detach);
    }
}

// The blocking look-up of Connect's process, as a function for a call thread: made outside the coroutine,
// because GCC 12 destroys a lambda's JSON captures twice when the lambda is made inside one.
std::function<std::variant<std::int64_t, Response>()> finding_running_process(std::shared_ptr<ServedSandbox> sandbox,
                                                                               json::object message) {
    return [sandbox = std::move(sandbox), message = std::move(message)] { return running_process_pid(sandbox, message); };
}

// Answers a streaming call's request that cannot be served with the stream's error.
// (`chunk` is made by the caller: GCC 12 mishandles temporaries inside a co_await's expression.)
boost::asio::awaitable<void> refuse_stream(Exchange& exchange, std::string chunk) {
    if (!co_await exchange.start_stream(http::status::ok, "application/connect+json")) co_return;
    const bool written = co_await exchange.write_chunk(chunk);
    if (written) co_await exchange.finish_stream();
}

std::string stream_error(std::string code, std::string message) {
    return connect_end_of_stream(std::make_pair(std::move(code), std::move(message)));
}

// The end of a stream for a unary-style error answer (Connect's {"code", "message"} body).
std::string stream_error_of(const Response& refused) {
    const auto body = json::parse(refused.body).as_object();
    return stream_error(string_field(body, "code"), string_field(body, "message"));
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
    if (auto* problem = std::get_if<std::string>(&request)) {
        auto chunk = stream_error("invalid_argument", *problem);
        co_await refuse_stream(exchange, std::move(chunk));
        co_return;
    }
    if (!co_await exchange.start_stream(http::status::ok, "application/connect+json")) co_return;
    co_await stream_process(context, exchange, sandbox, std::get<json::object>(std::move(request)), {});
}

// Connect: the process must be running (envd's Connect to an ended process is not_found); the stream starts
// with its pid at once — the SDK's connect() returns on it — then follows it with command_wait, with no
// timeout of the server's own: Connect-Timeout-Ms is the client's, and a client that gives up detaches.
boost::asio::awaitable<void> serve_process_connect(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox) {
    const bool streaming = exchange.request()[http::field::content_type].starts_with("application/connect+");
    if (!streaming)
        { co_await exchange.reply(connect_error("invalid_argument", "process.Process/Connect is a server-streaming call: send it as application/connect+json")); co_return; }
    auto message = connect_request_message(exchange.request());
    if (auto* problem = std::get_if<std::string>(&message)) {
        auto chunk = stream_error("invalid_argument", *problem);
        co_await refuse_stream(exchange, std::move(chunk));
        co_return;
    }
    auto found = co_await context.calls.run(finding_running_process(sandbox, std::get<json::object>(std::move(message))));
    if (auto* refused = std::get_if<Response>(&found)) {
        auto chunk = stream_error_of(*refused);
        co_await refuse_stream(exchange, std::move(chunk));
        co_return;
    }
    const auto pid = std::get<std::int64_t>(found);
    if (!co_await exchange.start_stream(http::status::ok, "application/connect+json")) co_return;
    // Named first: GCC 12 destroys a JSON temporary of a co_await's full expression twice.
    auto follow = wait_request(pid);
    auto start = start_envelope_of_pid(pid);
    co_await stream_process(context, exchange, sandbox, std::move(follow), std::move(start));
}

}  // namespace e2beval::server

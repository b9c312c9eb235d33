// filesystem.Filesystem's directory watching over the session's watchers (docs/session-protocol.md, "Watchers"):
// the unary CreateWatcher / GetWatcherEvents / RemoveWatcher the sync SDKs poll, and the WatchDir server stream
// the async Python SDK and the JS SDK read (its start event, then events as they come, keepalives).
//
// WatchDir is the same watcher polled for the client: a call thread starts it, drains it every kPollInterval
// while the client is connected, and stops it when the client goes, the watched directory goes, or the call's
// Connect-Timeout-Ms passes (then the stream ends with deadline_exceeded, which the SDKs raise as a timeout).
#include <thread>

#include <boost/json.hpp>

#include "server/client_watch.hpp"
#include "server/connect_protocol.hpp"
#include "server/envd.hpp"
#include "server/session_failures.hpp"
#include "server/streaming_call.hpp"
#include "server/request_json.hpp"
#include "core/session_protocol.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {

constexpr std::chrono::milliseconds kPollInterval{100};
constexpr std::chrono::milliseconds kAbandonCheck{10};
constexpr std::chrono::milliseconds kDefaultWatchKeepalive{50'000};  // the SDKs ask for 50 s (Keepalive-Ping-Interval)

bool bool_of(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    return value && value->is_bool() && value->as_bool();
}

// A session event {"name", "type": "create"|..., "entry"?} as filesystem.FilesystemEvent in proto3 JSON.
json::object filesystem_event(const json::object& event) {
    const auto type = string_field(event, "type");
    const char* name = type == "create"   ? "EVENT_TYPE_CREATE"
                       : type == "write"  ? "EVENT_TYPE_WRITE"
                       : type == "remove" ? "EVENT_TYPE_REMOVE"
                       : type == "rename" ? "EVENT_TYPE_RENAME"
                       : type == "chmod"  ? "EVENT_TYPE_CHMOD"
                                          : "EVENT_TYPE_UNSPECIFIED";
    json::object message{{"name", string_field(event, "name")}, {"type", name}};
    if (const auto* entry = event.if_contains("entry"); entry && entry->is_object()) message["entry"] = envd_entry_info(entry->as_object());
    return message;
}

json::array filesystem_events(const json::object& reply) {
    json::array events;
    if (const auto* drained = reply.if_contains("events"); drained && drained->is_array())
        for (const auto& event : drained->as_array())
            if (event.is_object()) events.push_back(filesystem_event(event.as_object()));
    return events;
}

// The session's watch_start for a CreateWatcherRequest or WatchDirRequest. include_entry and
// allow_network_mounts are gated above the envd version reported (0.6.3, 0.6.4): the official SDKs never send
// them true, but includeEntry is served for clients that send it (e2beval's own E2B backend).
json::object watch_start_request(const json::object& message) {
    return {{"op", session_op::watch_start}, {"path", string_field(message, "path")}, {"recursive", bool_of(message, "recursive")},
            {"include_entry", bool_of(message, "includeEntry")}};
}

json::object watcher_request(std::string_view op, const json::object& message) {
    return {{"op", op}, {"watcher", string_field(message, "watcherId")}};
}

Response create_watcher(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    auto started = connect_session_call(sandbox, watch_start_request(message));
    if (auto* failure = std::get_if<Response>(&started)) return std::move(*failure);
    return json_response(http::status::ok, json::object{{"watcherId", string_field(std::get<json::object>(started), "watcher")}});
}

Response get_watcher_events(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    auto drained = connect_session_call(sandbox, watcher_request(session_op::watch_events, message));
    if (auto* failure = std::get_if<Response>(&drained)) return std::move(*failure);
    return json_response(http::status::ok, json::object{{"events", filesystem_events(std::get<json::object>(drained))}});
}

Response remove_watcher(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    auto stopped = connect_session_call(sandbox, watcher_request(session_op::watch_stop, message));
    if (auto* failure = std::get_if<Response>(&stopped)) return std::move(*failure);
    return json_response(http::status::ok, json::object{});
}

using Call = UnaryConnectCall;

Call watch_call_named(std::string_view method) {
    if (method == "CreateWatcher") return create_watcher;
    if (method == "GetWatcherEvents") return get_watcher_events;
    if (method == "RemoveWatcher") return remove_watcher;
    return nullptr;
}

// What the polling thread tells the stream, as JSON text through the EventPipe: {"type": "start"},
// {"type": "events", "events": [...]}, and last {"type": "end"} or {"type": "failure", "code", "message"}.
std::string pipe_message(std::string_view type) { return json::serialize(json::object{{"type", type}}); }
std::string pipe_failure(std::string_view code, std::string_view message) {
    return json::serialize(json::object{{"type", "failure"}, {"code", code}, {"message", message}});
}

// Runs on a call thread for the whole stream.
void poll_watcher(const std::shared_ptr<EventPipe>& pipe, const std::shared_ptr<ServedSandbox>& sandbox, json::object message,
                  std::optional<std::chrono::steady_clock::time_point> deadline) {
    auto started = connect_session_call(sandbox, watch_start_request(message));
    if (auto* failure = std::get_if<Response>(&started)) {
        const auto body = json::parse(failure->body).as_object();
        pipe->push(pipe_failure(string_field(body, "code"), string_field(body, "message")));
        return pipe->end();
    }
    const auto watcher = string_field(std::get<json::object>(started), "watcher");
    pipe->push(pipe_message("start"));
    std::optional<std::string> last;  // the stream's end, once known
    while (!last) {
        // Between polls, the client's going is looked for often, so its watcher goes at once with it.
        for (auto slept = std::chrono::milliseconds(0); slept < kPollInterval && !pipe->abandoned(); slept += kAbandonCheck)
            std::this_thread::sleep_for(kAbandonCheck);
        if (pipe->abandoned()) break;
        auto drained = connect_session_call(sandbox, {{"op", session_op::watch_events}, {"watcher", watcher}});
        if (auto* failure = std::get_if<Response>(&drained)) {
            const auto body = json::parse(failure->body).as_object();
            last = pipe_failure(string_field(body, "code"), string_field(body, "message"));
            break;
        }
        const auto& reply = std::get<json::object>(drained);
        if (auto events = filesystem_events(reply); !events.empty())
            pipe->push(json::serialize(json::object{{"type", "events"}, {"events", std::move(events)}}));
        if (bool_of(reply, "ended")) last = pipe_message("end");  // the watched directory is gone
        else if (deadline && std::chrono::steady_clock::now() >= *deadline)
            last = pipe_failure("deadline_exceeded", "the watch reached its timeout (the SDK's `timeout`; 0 is none)");
    }
    // The watcher goes with the stream, whatever ended it (a session already gone has none left).
    try {
        sandbox->call(nullptr, {{"op", session_op::watch_stop}, {"watcher", watcher}}, {});
    } catch (...) {
    }
    if (last) pipe->push(*last);
    pipe->end();
}

// WatchDirResponse envelopes, built in plain functions: GCC 12 cannot brace-initialise JSON inside a coroutine.
std::string watch_keepalive_envelope() { return connect_envelope({{"keepalive", json::object{}}}); }

// The bytes of one message of the polling thread, and whether they end the stream.
std::pair<std::string, bool> stream_bytes(const std::string& piped) {
    const auto message = json::parse(piped).as_object();
    const auto type = string_field(message, "type");
    if (type == "start") return {connect_envelope({{"start", json::object{}}}), false};
    if (type == "events") {
        std::string bytes;
        for (const auto& event : message.at("events").as_array()) bytes += connect_envelope({{"filesystem", event}});
        return {bytes, false};
    }
    if (type == "failure") return {connect_end_of_stream(std::make_pair(string_field(message, "code"), string_field(message, "message"))), true};
    return {connect_end_of_stream(), true};  // "end": the watched directory is gone; a clean end, as envd's
}

std::optional<std::chrono::milliseconds> milliseconds_header(std::string_view text) {
    if (text.empty()) return std::nullopt;
    try {
        return std::chrono::milliseconds(static_cast<long long>(std::stod(std::string(text))));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// Keepalive-Ping-Interval is in seconds; at most the SDKs' 50 s, at least 1 s.
std::chrono::milliseconds keepalive_interval(std::string_view seconds) {
    const auto asked = milliseconds_header(seconds);
    if (!asked) return kDefaultWatchKeepalive;
    return std::clamp(*asked * 1000, std::chrono::milliseconds(1000), kDefaultWatchKeepalive);
}

}  // namespace

std::optional<Plan> plan_watcher_call(Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, std::string_view method) {
    const auto call = watch_call_named(method);
    if (!call) return std::nullopt;
    return plan_unary_connect_call(exchange, std::move(sandbox), "filesystem.Filesystem/" + std::string(method), call);
}

boost::asio::awaitable<void> serve_watch_dir(ServerContext& context, Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox) {
    if (!exchange.request()[http::field::content_type].starts_with("application/connect+")) {
        co_await exchange.reply(connect_error("invalid_argument", "filesystem.Filesystem/WatchDir is a server-streaming call: send it as application/connect+json"));
        co_return;
    }
    auto message = connect_request_message(exchange.request());
    if (!co_await exchange.start_stream(http::status::ok, "application/connect+json")) co_return;
    if (auto* problem = std::get_if<std::string>(&message)) {
        if (co_await exchange.write_chunk(connect_end_of_stream(std::make_pair(std::string("invalid_argument"), *problem))))
            co_await exchange.finish_stream();
        co_return;
    }
    const auto keepalive = keepalive_interval(exchange.header("Keepalive-Ping-Interval"));
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (const auto timeout = milliseconds_header(exchange.header("Connect-Timeout-Ms")); timeout && timeout->count() > 0)
        deadline = std::chrono::steady_clock::now() + *timeout;

    auto pipe = std::make_shared<EventPipe>(exchange.stream().get_executor());
    context.calls.spawn([pipe, sandbox, request = std::get<json::object>(std::move(message)), deadline]() mutable {
        try {
            poll_watcher(pipe, sandbox, std::move(request), deadline);
        } catch (...) {
            pipe->end(std::current_exception());
        }
    });
    ClientWatch watch(exchange.stream().socket(), [pipe] { pipe->abandon(); });
    for (;;) {
        auto next = co_await pipe->next(keepalive);
        std::string chunk;
        if (std::holds_alternative<EventPipe::Tick>(next)) {
            chunk = watch_keepalive_envelope();
        } else if (std::holds_alternative<EventPipe::Ended>(next)) {
            if (pipe->abandoned()) break;
            if (pipe->failure()) {  // the sandbox ended mid-watch: the proxy's wording, so the SDK says it is gone
                const auto failure = call_exception_response(pipe->failure(), sandbox->session->id());
                const auto body = json::parse(failure.body).as_object();
                chunk = connect_end_of_stream(std::make_pair(
                    std::string(failure.status == http::status::bad_gateway ? "unavailable" : "internal"), string_field(body, "message")));
            } else {
                chunk = connect_end_of_stream();
            }
            if (co_await exchange.write_chunk(chunk)) co_await exchange.finish_stream();
            break;
        } else {
            auto piece = stream_bytes(std::get<std::string>(next));
            if (piece.second) {
                if (co_await exchange.write_chunk(piece.first)) co_await exchange.finish_stream();
                break;
            }
            chunk = std::move(piece.first);
        }
        if (!co_await exchange.write_chunk(chunk)) break;
    }
    if (exchange.stream_unfinished()) {
        exchange.close_after();
        pipe->abandon();  // the polling thread stops the watcher
    }
}

}  // namespace e2beval::server

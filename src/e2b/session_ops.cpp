// The session protocol's ops over E2B's API (src/e2b/session_core.hpp): run_code over /execute, the code
// contexts, files over /files and filesystem.Filesystem, watchers, ping; commands are in session_commands.cpp.
// Each answer is put into the protocol's shapes (snake_case EntryInfo, lower-case event types), and E2B's
// errors into the protocol's failure kinds. What E2B cannot do is a failure `unsupported` that says so.
#include <chrono>
#include <cstdio>
#include <ctime>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include "core/base64.hpp"
#include "core/json_fields.hpp"
#include "e2b/session_core.hpp"
#include "e2beval/core/error.hpp"
#include "core/session_protocol.hpp"

namespace e2beval::e2b {

namespace json = boost::json;
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using Clock = std::chrono::steady_clock;

// ---- helpers shared with session_commands.cpp -----------------------------------------------------------

json::object failure(const std::string& kind, const std::string& message) {
    return {{"type", "failure"}, {"kind", kind}, {"message", message}};
}

std::string required_string(const json::object& request, std::string_view key) {
    const auto* value = request.if_contains(key);
    if (!value || !value->is_string()) throw input_error("\"" + std::string(key) + "\" (a string) is required");
    return std::string(value->as_string());
}

std::optional<std::string> optional_string(const json::object& request, std::string_view key) {
    const auto* value = request.if_contains(key);
    if (!value || value->is_null()) return std::nullopt;
    if (!value->is_string()) throw input_error("\"" + std::string(key) + "\" must be a string or null");
    return std::string(value->as_string());
}

std::optional<double> optional_number(const json::object& request, std::string_view key) {
    const auto* value = request.if_contains(key);
    if (!value || value->is_null()) return std::nullopt;
    if (!value->is_number()) throw input_error("\"" + std::string(key) + "\" must be a number or null");
    return value->to_number<double>();
}

std::map<std::string, std::string> string_map_field(const json::object& request, std::string_view key) {
    std::map<std::string, std::string> map;
    const auto* value = request.if_contains(key);
    if (!value || value->is_null()) return map;
    if (!value->is_object()) throw input_error("\"" + std::string(key) + "\" must map names to strings");
    for (const auto& [name, item] : value->as_object()) {
        if (!item.is_string()) throw input_error("\"" + std::string(key) + "\" values must be strings; '" + std::string(name) + "' is not");
        map.emplace(std::string(name), std::string(item.as_string()));
    }
    return map;
}

std::string utc_timestamp_now() {
    const auto now = std::chrono::system_clock::now();
    const auto seconds = std::chrono::system_clock::to_time_t(now);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1'000'000;
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char text[96];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                  parts.tm_hour, parts.tm_min, parts.tm_sec, static_cast<long long>(micros));
    return text;
}

void SessionCore::close(const std::string& reason) {
    if (closed) return;
    closed = true;
    closed_reason = reason;
    for (const auto& call : calls) call->request(CallControl::Stop::killed);
    for (const auto& [pid, command] : commands)
        for (const auto& listener : command->listeners) listener->channel->fail(closed_error());
    commands.clear();
}

std::exception_ptr SessionCore::closed_error() const {
    return std::make_exception_ptr(sandbox_error("session " + remote.id + " is closed: " + closed_reason, errc::session_closed));
}

namespace {

// What a failure is, decided synchronously (no co_await may run inside a catch block: GCC 12).
struct Classified {
    std::string kind;
    std::string message;
    bool gone = false;        // the sandbox's proxy said so (502)
    bool maybe_gone = false;  // a broken or silent connection: /health decides
};

Classified classify(std::exception_ptr failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const ApiError& refused) {
        if (refused.sandbox_gone()) return {"io", refused.what(), true, false};
        const auto& code = refused.code();
        const auto status = refused.status();
        if (code == "not_found" || status == 404) return {"not_found", refused.what()};
        if (code == "invalid_argument" || code == "already_exists" || code == "failed_precondition" || status == 400 || status == 409)
            return {"invalid", refused.what()};
        if (code == "unimplemented" || status == 501) return {"unsupported", refused.what()};
        if (code == "unavailable" || status == 503) return {"io", refused.what(), false, true};
        return {"io", refused.what()};
    } catch (const CallError& broken) {
        return {"io", broken.what(), false, true};
    } catch (const error& other) {
        if (other.code() == errc::session_closed) throw;
        if (other.code() == errc::invalid_input) return {"invalid", other.what()};
        return {"io", other.what()};
    } catch (const std::exception& other) {
        return {"internal", other.what()};
    }
}

// Whether envd still answers for the sandbox: false only when the proxy says it is gone.
asio::awaitable<bool> sandbox_answers(SessionCore& core) {
    std::exception_ptr failure;
    try {
        co_await core.engine->api.health(core.remote);
    } catch (...) {
        failure = std::current_exception();
    }
    if (!failure) co_return true;
    try {
        std::rethrow_exception(failure);
    } catch (const ApiError& refused) {
        if (refused.sandbox_gone() || refused.status() == 404) co_return false;
    } catch (...) {
    }
    co_return true;
}

}  // namespace

asio::awaitable<json::object> failure_event(SessionCore& core, std::exception_ptr thrown) {
    if (core.closed) std::rethrow_exception(core.closed_error());
    auto classified = classify(thrown);
    if (classified.maybe_gone && !co_await sandbox_answers(core)) classified.gone = true;
    if (classified.gone) {
        core.close("the E2B sandbox is gone (killed, or it reached its timeout): " + classified.message);
        // Gone on E2B's side: nothing left for the engine to kill.
        core.engine->forget_tracked(core.remote.id);
        std::rethrow_exception(core.closed_error());
    }
    co_return failure(classified.kind, classified.message);
}

namespace {

// ---- code contexts --------------------------------------------------------------------------------------

json::object context_json(const json::object& context) {
    json::object out;
    for (const char* key : {"id", "language", "cwd"})
        if (const auto* value = context.if_contains(key)) out[key] = *value;
    return out;
}

json::object reply(json::object fields = {}) {
    fields["type"] = "reply";
    return fields;
}

// /execute's events already have the protocol's shapes (the server's NDJSON is what the session forwards);
// its keepalives are the connection's, not the cell's. A cell's timeout is the client's on E2B: past it the
// stream is closed, which makes the server interrupt the cell, and the protocol's `timeout` event says so.
asio::awaitable<std::optional<json::object>> run_code(SessionCore& core, json::object request, std::shared_ptr<CallChannel> channel,
                                                      std::shared_ptr<CallControl> control) {
    const auto code = required_string(request, "code");
    const auto language = optional_string(request, "language");
    const auto context = optional_string(request, "context");
    const auto envs = string_map_field(request, "envs");
    const auto timeout = optional_number(request, "timeout");
    if (language && context) co_return failure("invalid", "give \"language\" or \"context\", not both");
    if (timeout && *timeout < 0) co_return failure("invalid", "\"timeout\" must be 0 (none) or a positive number of seconds");
    std::optional<Clock::time_point> deadline;
    if (timeout && *timeout > 0) deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(*timeout * 1000.0));

    bool ended = false;
    const auto follow = [&]() -> asio::awaitable<std::exception_ptr> {
        try {
            co_await core.engine->api.execute(core.remote, code, context, language, envs, std::chrono::milliseconds(0),
                                              [&](const json::object& event) {
                                                  const auto* type = event.if_contains("type");
                                                  const auto name = type && type->is_string() ? std::string_view(type->as_string()) : std::string_view();
                                                  if (name == "keepalive") return;
                                                  if (name == "end_of_execution") {
                                                      ended = true;
                                                      return;
                                                  }
                                                  channel->push(event);
                                              });
        } catch (...) {
            co_return std::current_exception();
        }
        co_return nullptr;
    };
    const auto stop = [&]() -> asio::awaitable<bool> { co_return co_await control->wait(deadline); };
    auto first = co_await (follow() || stop());
    if (first.index() == 0) {
        if (auto failed = std::get<0>(first)) co_return co_await failure_event(core, failed);
        co_return json::object{{"type", "end_of_execution"}};
    }
    if (control->stop() == CallControl::Stop::killed) std::rethrow_exception(core.closed_error());
    if (std::get<1>(first)) {
        channel->push({{"type", "timeout"}, {"seconds", *timeout}, {"context_restarted", false}});
    } else {
        channel->push({{"type", "error"},
                       {"name", "KeyboardInterrupt"},
                       {"value", "interrupted: the /execute stream was closed, which makes E2B interrupt the cell"},
                       {"traceback", ""}});
    }
    co_return json::object{{"type", "end_of_execution"}};
}

asio::awaitable<json::object> context_op(SessionCore& core, const std::string& op, const json::object& request) {
    auto& api = core.engine->api;
    if (op == session_op::create_context) {
        const auto created = co_await api.create_context(core.remote, optional_string(request, "language").value_or(""),
                                                         optional_string(request, "cwd").value_or(""));
        co_return reply({{"context", context_json(created)}});
    }
    if (op == session_op::list_contexts) {
        json::array contexts;
        for (const auto& context : co_await api.list_contexts(core.remote)) contexts.push_back(context_json(context));
        co_return reply({{"contexts", std::move(contexts)}});
    }
    const auto id = required_string(request, "context");
    if (op == session_op::restart_context) co_await api.restart_context(core.remote, id);
    else co_await api.delete_context(core.remote, id);
    co_return reply();
}

// ---- files ----------------------------------------------------------------------------------------------

std::int64_t integer_of(const json::value* value) {
    if (!value) return 0;
    if (value->is_int64()) return value->as_int64();
    if (value->is_uint64()) return static_cast<std::int64_t>(value->as_uint64());
    if (value->is_double()) return static_cast<std::int64_t>(value->as_double());
    if (value->is_string()) {  // proto3 JSON writes int64 as a string
        try {
            return std::stoll(std::string(value->as_string()));
        } catch (const std::exception&) {
        }
    }
    return 0;
}

// filesystem.EntryInfo (proto3 JSON) as the protocol's EntryInfo.
json::object entry_info(const json::object& entry) {
    const auto type = string_field(entry, "type");
    json::object info{{"name", string_field(entry, "name")},
                      {"type", type == "FILE_TYPE_DIRECTORY" ? "dir" : type == "FILE_TYPE_SYMLINK" ? "symlink" : "file"},
                      {"path", string_field(entry, "path")},
                      {"size", integer_of(entry.if_contains("size"))},
                      {"mode", integer_of(entry.if_contains("mode"))},
                      {"permissions", string_field(entry, "permissions")},
                      {"owner", string_field(entry, "owner")},
                      {"group", string_field(entry, "group")},
                      {"modified_time", string_field(entry, "modifiedTime")}};
    if (const auto target = string_field(entry, "symlinkTarget"); !target.empty()) info["symlink_target"] = target;
    return info;
}

json::object entry_of(const json::object& answer) {
    const auto* entry = answer.if_contains("entry");
    return entry && entry->is_object() ? entry_info(entry->as_object()) : json::object{};
}

const char* event_type_name(std::string_view envd_type) {
    if (envd_type == "EVENT_TYPE_CREATE") return "create";
    if (envd_type == "EVENT_TYPE_WRITE") return "write";
    if (envd_type == "EVENT_TYPE_REMOVE") return "remove";
    if (envd_type == "EVENT_TYPE_RENAME") return "rename";
    if (envd_type == "EVENT_TYPE_CHMOD") return "chmod";
    return "unknown";
}

// envd's request messages, made outside the coroutines: GCC 12 mishandles a braced JSON temporary inside a
// co_await's expression.
json::object message_of(std::string_view key, json::value value) {
    json::object message;
    message[key] = std::move(value);
    return message;
}

json::object message_of(std::string_view key, json::value value, std::string_view key2, json::value value2) {
    auto message = message_of(key, std::move(value));
    message[key2] = std::move(value2);
    return message;
}

asio::awaitable<json::object> files_op(SessionCore& core, const std::string& op, const json::object& request) {
    auto& api = core.engine->api;
    const auto& remote = core.remote;
    const auto stat = [&](const std::string& path) -> asio::awaitable<json::object> {
        auto message = message_of("path", json::value(path));
        co_return co_await api.envd_call(remote, "filesystem.Filesystem/Stat", std::move(message), true);
    };
    if (op == session_op::files_write) {
        const auto path = required_string(request, "path");
        const auto bytes = base64_decode(required_string(request, "data"));
        const auto written = co_await api.write_file(remote, path, bytes);
        // The upload answers name and path only; the protocol's EntryInfo is the file's whole description.
        const auto written_path = string_field(written, "path").empty() ? path : string_field(written, "path");
        const auto described = co_await stat(written_path);
        co_return reply({{"entry", entry_of(described)}});
    }
    if (op == session_op::files_read) {
        const auto bytes = co_await api.read_file(remote, required_string(request, "path"));
        co_return reply({{"data", base64_encode(bytes)}});
    }
    if (op == session_op::files_list) {
        std::int64_t depth = 1;
        if (const auto* given = request.if_contains("depth"); given && !given->is_null()) {
            if (!given->is_int64() || given->as_int64() < 1) co_return failure("invalid", "\"depth\" must be a whole number of at least 1");
            depth = given->as_int64();
        }
        auto message = message_of("path", json::value(required_string(request, "path")), "depth", json::value(depth));
        const auto listed = co_await api.envd_call(remote, "filesystem.Filesystem/ListDir", std::move(message), true);
        json::array entries;
        if (const auto* items = listed.if_contains("entries"); items && items->is_array())
            for (const auto& item : items->as_array())
                if (item.is_object()) entries.push_back(entry_info(item.as_object()));
        co_return reply({{"entries", std::move(entries)}});
    }
    if (op == session_op::files_exists || op == session_op::files_info) {
        const auto path = required_string(request, "path");
        std::exception_ptr missing;
        json::object found;
        try {
            found = co_await stat(path);
        } catch (const ApiError& refused) {
            if (op != session_op::files_exists || !(refused.code() == "not_found" || refused.status() == 404)) throw;
            missing = std::current_exception();
        }
        if (op == session_op::files_exists) co_return reply({{"exists", !missing}});
        co_return reply({{"entry", entry_of(found)}});
    }
    if (op == session_op::files_remove) {
        auto message = message_of("path", json::value(required_string(request, "path")));
        co_await api.envd_call(remote, "filesystem.Filesystem/Remove", std::move(message), true);
        co_return reply();
    }
    if (op == session_op::files_make_dir) {
        bool created = true;
        auto message = message_of("path", json::value(required_string(request, "path")));
        try {
            co_await api.envd_call(remote, "filesystem.Filesystem/MakeDir", std::move(message), false);
        } catch (const ApiError& refused) {
            if (refused.code() != "already_exists") throw;
            created = false;  // envd says already_exists for a directory that was there
        }
        co_return reply({{"created", created}});
    }
    if (op == session_op::files_rename) {
        auto message = message_of("source", json::value(required_string(request, "old_path")), "destination",
                                  json::value(required_string(request, "new_path")));
        const auto moved = co_await api.envd_call(remote, "filesystem.Filesystem/Move", std::move(message), false);
        co_return reply({{"entry", entry_of(moved)}});
    }
    // Watchers: envd's polled watcher calls. E2B reports neither dropped events nor the end of a watched
    // directory: `dropped` is 0 and `ended` false (docs/e2b.md).
    if (op == session_op::watch_start) {
        const auto* recursive = request.if_contains("recursive");
        auto message = message_of("path", json::value(required_string(request, "path")), "recursive",
                                  json::value(recursive && recursive->is_bool() && recursive->as_bool()));
        // Sent only when asked: envd before 0.6.3 refuses the unknown field.
        if (const auto* include = request.if_contains("include_entry"); include && include->is_bool() && include->as_bool())
            message["includeEntry"] = true;
        const auto started = co_await api.envd_call(remote, "filesystem.Filesystem/CreateWatcher", std::move(message), false);
        co_return reply({{"watcher", string_field(started, "watcherId")}});
    }
    if (op == session_op::watch_events) {
        auto message = message_of("watcherId", json::value(required_string(request, "watcher")));
        const auto drained = co_await api.envd_call(remote, "filesystem.Filesystem/GetWatcherEvents", std::move(message), false);
        json::array events;
        if (const auto* items = drained.if_contains("events"); items && items->is_array())
            for (const auto& item : items->as_array()) {
                if (!item.is_object()) continue;
                json::object event{{"name", string_field(item.as_object(), "name")},
                                   {"type", event_type_name(string_field(item.as_object(), "type"))}};
                if (const auto* entry = item.as_object().if_contains("entry"); entry && entry->is_object())
                    event["entry"] = entry_info(entry->as_object());
                events.push_back(std::move(event));
            }
        co_return reply({{"events", std::move(events)}, {"dropped", 0}, {"ended", false}});
    }
    // watch_stop
    auto message = message_of("watcherId", json::value(required_string(request, "watcher")));
    co_await api.envd_call(remote, "filesystem.Filesystem/RemoveWatcher", std::move(message), true);
    co_return reply();
}

bool is_files_op(const std::string& op) {
    return op.starts_with("files_") || op == session_op::watch_start || op == session_op::watch_events || op == session_op::watch_stop;
}

// The unary ops: the answer or the failure. (The failure is classified outside the catch block: GCC 12.)
asio::awaitable<json::object> unary_op(SessionCore& core, const std::string& op, const json::object& request) {
    std::exception_ptr failed;
    try {
        if (op == session_op::create_context || op == session_op::list_contexts || op == session_op::restart_context || op == session_op::remove_context)
            co_return co_await context_op(core, op, request);
        if (is_files_op(op)) co_return co_await files_op(core, op, request);
        if (op == session_op::ping) {
            co_await core.engine->api.health(core.remote);
            co_return reply({{"python", nullptr}, {"node", nullptr}, {"backend", "e2b"}});
        }
    } catch (...) {
        failed = std::current_exception();
    }
    if (failed) co_return co_await failure_event(core, failed);
    co_return failure("invalid", "unknown op '" + op + "'; docs/session-protocol.md lists the ops");
}

bool is_command_op(const std::string& op) {
    return op == session_op::run_command || op.starts_with("command_");
}

}  // namespace

asio::awaitable<std::optional<json::object>> serve_request(std::shared_ptr<SessionCore> core, json::object request,
                                                           std::shared_ptr<CallChannel> channel, std::shared_ptr<CallControl> control) {
    if (core->closed) std::rethrow_exception(core->closed_error());
    const auto* op_value = request.if_contains("op");
    if (!op_value || !op_value->is_string()) co_return failure("invalid", "the request has no \"op\" (a string)");
    const std::string op(op_value->as_string());
    if (op == session_op::interrupt)
        co_return failure("unsupported", "the interrupt op is not a request on the e2b backend: interrupt a call with its "
                                         "CallInterrupt (or Session::interrupt)");
    std::exception_ptr invalid;
    try {
        if (op == session_op::run_code) co_return co_await run_code(*core, request, channel, control);
        if (is_command_op(op)) co_return co_await serve_command_request(core, op, request, channel, control);
    } catch (const input_error&) {
        invalid = std::current_exception();
    }
    if (invalid) co_return co_await failure_event(*core, invalid);
    co_return co_await unary_op(*core, op, request);
}

}  // namespace e2beval::e2b

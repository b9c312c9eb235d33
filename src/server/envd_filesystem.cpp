// filesystem.Filesystem's unary calls (Stat, ListDir, MakeDir, Move, Remove) as Connect JSON, over the session's
// file operations (docs/session-protocol.md, "Files"). Paths go to the session as the client sent them: the
// session's agent resolves them inside the sandbox (relative ones against the home; `..` and symlinks never
// leave the sandbox's own filesystem), so no host path is ever formed here.
//
// Errors are Connect codes the SDKs turn into their exceptions: not_found → FileNotFoundException (and False
// for exists), already_exists on MakeDir → False (the directory was there), invalid_argument →
// InvalidArgumentException. WatchDir and the watcher calls are in envd_watch.cpp.
#include <boost/json.hpp>

#include "server/connect_protocol.hpp"
#include "server/envd.hpp"
#include "server/session_failures.hpp"
#include "server/request_json.hpp"
#include "core/session_protocol.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {

json::object entry_of_reply(const json::object& reply) {
    const auto* entry = reply.if_contains("entry");
    return entry && entry->is_object() ? envd_entry_info(entry->as_object()) : json::object{};
}

}  // namespace

// A session EntryInfo (snake_case, "file"|"dir"|"symlink") as filesystem.EntryInfo in proto3 JSON (camelCase,
// enum names, int64 as a string, Timestamp as RFC 3339). A symlink is FILE_TYPE_SYMLINK with its target, the
// way envd reported links before its is_symlink field (the SDK reads both); a symlink to a directory comes
// from the session as "dir" with its target and stays a directory, so a client can list into it.
json::object envd_entry_info(const json::object& entry) {
    const auto type = string_field(entry, "type");
    json::object info{{"name", string_field(entry, "name")},
                      {"type", type == "dir" ? "FILE_TYPE_DIRECTORY" : type == "symlink" ? "FILE_TYPE_SYMLINK" : "FILE_TYPE_FILE"},
                      {"path", string_field(entry, "path")},
                      {"permissions", string_field(entry, "permissions")},
                      {"owner", string_field(entry, "owner")},
                      {"group", string_field(entry, "group")}};
    if (const auto* size = entry.if_contains("size"); size && size->is_int64()) info["size"] = std::to_string(size->as_int64());
    if (const auto* mode = entry.if_contains("mode"); mode && mode->is_int64()) info["mode"] = mode->as_int64();
    if (const auto modified = string_field(entry, "modified_time"); !modified.empty()) info["modifiedTime"] = modified;
    if (const auto* target = entry.if_contains("symlink_target"); target && target->is_string()) info["symlinkTarget"] = *target;
    return info;
}

std::variant<json::object, Response> connect_session_call(const std::shared_ptr<ServedSandbox>& sandbox, json::object request) {
    try {
        auto final_event = sandbox->call(nullptr, std::move(request), {});
        if (string_field(final_event, "type") == "failure")
            return connect_error(connect_code_of_failure(final_event), failure_message(final_event));
        return final_event;
    } catch (...) {
        // A sandbox gone mid-call is "unavailable" with the proxy's wording; the SDK then probes /health (502)
        // and raises SandboxNotRunningException.
        const auto failure = call_exception_response(std::current_exception(), sandbox->session->id());
        const auto body = json::parse(failure.body).as_object();
        const char* code = failure.status == http::status::bad_gateway ? "unavailable"
                           : failure.status == http::status::bad_request ? "invalid_argument"
                                                                          : "internal";
        return connect_error(code, string_field(body, "message"));
    }
}

namespace {

// Each call: the request message to an answer, on a call thread (session calls block).
using Call = UnaryConnectCall;

Response answer(std::variant<json::object, Response> reply, json::object (*to_message)(const json::object&)) {
    if (auto* failure = std::get_if<Response>(&reply)) return std::move(*failure);
    return json_response(http::status::ok, to_message(std::get<json::object>(reply)));
}

Response stat(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    return answer(connect_session_call(sandbox, {{"op", session_op::files_info}, {"path", string_field(message, "path")}}),
                  [](const json::object& reply) { return json::object{{"entry", entry_of_reply(reply)}}; });
}

Response list_dir(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    // proto3 JSON leaves out a zero depth, and the SDK sends 0 for depth=None: both mean one level, as in envd.
    std::int64_t depth = 1;
    if (const auto* field = message.if_contains("depth")) {
        if (field->is_int64()) depth = field->as_int64();
        else if (field->is_uint64()) depth = static_cast<std::int64_t>(std::min<std::uint64_t>(field->as_uint64(), 1'000'000));
        else if (!field->is_null()) return connect_error("invalid_argument", "ListDirRequest.depth must be a whole number");
    }
    json::object request{{"op", session_op::files_list}, {"path", string_field(message, "path")}, {"depth", std::max<std::int64_t>(depth, 1)}};
    return answer(connect_session_call(sandbox, std::move(request)), [](const json::object& reply) {
        json::array entries;
        if (const auto* listed = reply.if_contains("entries"); listed && listed->is_array())
            for (const auto& entry : listed->as_array())
                if (entry.is_object()) entries.push_back(envd_entry_info(entry.as_object()));
        return json::object{{"entries", std::move(entries)}};
    });
}

Response make_dir(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    const auto path = string_field(message, "path");
    auto made = connect_session_call(sandbox, {{"op", session_op::files_make_dir}, {"path", path}});
    if (auto* failure = std::get_if<Response>(&made)) return std::move(*failure);
    const auto* created = std::get<json::object>(made).if_contains("created");
    // envd answers already_exists for a directory that was there; the SDK's make_dir returns False on it.
    if (created && created->is_bool() && !created->as_bool())
        return connect_error("already_exists", "directory " + path + " already exists");
    return stat(sandbox, message);
}

Response move(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    json::object request{{"op", session_op::files_rename}, {"old_path", string_field(message, "source")}, {"new_path", string_field(message, "destination")}};
    return answer(connect_session_call(sandbox, std::move(request)),
                  [](const json::object& reply) { return json::object{{"entry", entry_of_reply(reply)}}; });
}

Response remove(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    return answer(connect_session_call(sandbox, {{"op", session_op::files_remove}, {"path", string_field(message, "path")}}),
                  [](const json::object&) { return json::object{}; });
}

Call filesystem_call_named(std::string_view method) {
    if (method == "Stat") return stat;
    if (method == "ListDir") return list_dir;
    if (method == "MakeDir") return make_dir;
    if (method == "Move") return move;
    if (method == "Remove") return remove;
    return nullptr;
}

}  // namespace

std::optional<Plan> plan_filesystem(Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, std::string_view method) {
    const auto call = filesystem_call_named(method);
    if (!call) return std::nullopt;
    return plan_unary_connect_call(exchange, std::move(sandbox), "filesystem.Filesystem/" + std::string(method), call);
}

}  // namespace e2beval::server

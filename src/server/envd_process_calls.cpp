// process.Process's unary calls, each a session request and its reply in envd's shapes.
#include "server/envd_process_calls.hpp"

#include <boost/json.hpp>

#include "core/base64.hpp"
#include "server/connect_protocol.hpp"
#include "server/envd.hpp"
#include "server/sandbox_store.hpp"
#include "server/session_failures.hpp"
#include "server/request_json.hpp"
#include "core/session_protocol.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {

// The session's answer to `request`: its reply, or the Connect error to answer instead.
std::variant<json::object, Response> session_call(const std::shared_ptr<ServedSandbox>& sandbox, json::object request) {
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
        return connect_error(failure.status == http::status::bad_gateway ? "unavailable" : "internal", string_field(body, "message"));
    }
}

// ProcessSelector {"pid": N} | {"tag": "..."} as the fields of a session request, or what is wrong with it.
std::variant<json::object, std::string> selector_fields(const json::object& message) {
    const auto* process = message.if_contains("process");
    if (!process || !process->is_object()) return std::string("process (a ProcessSelector: pid or tag) is required");
    const auto& selector = process->as_object();
    if (const auto* pid = selector.if_contains("pid")) {
        // Protobuf's JSON writes integers as numbers, and 64-bit ones as strings: take both.
        std::int64_t value = -1;
        if (pid->is_int64()) value = pid->as_int64();
        else if (pid->is_uint64()) value = static_cast<std::int64_t>(pid->as_uint64());
        else if (pid->is_string()) {
            try {
                value = std::stoll(std::string(pid->as_string()));
            } catch (const std::exception&) {
            }
        }
        if (value < 0) return std::string("process.pid must be a process id");
        return json::object{{"pid", value}};
    }
    if (const auto* tag = selector.if_contains("tag"); tag && tag->is_string()) return json::object{{"tag", tag->as_string()}};
    return std::string("process needs a pid or a tag");
}

Response not_found(const json::object& selector) {
    const auto* pid = selector.if_contains("pid");
    return connect_error("not_found", pid ? "process with pid " + json::serialize(*pid) + " not found"
                                          : "process with tag " + json::serialize(selector.at("tag")) + " not found");
}

// Runs `op` on the selected process with `extra` fields; its reply or the error to answer.
std::variant<json::object, Response> on_process(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message,
                                                std::string_view op, json::object extra = {}) {
    auto selector = selector_fields(message);
    if (auto* problem = std::get_if<std::string>(&selector)) return connect_error("invalid_argument", *problem);
    json::object request = std::get<json::object>(std::move(selector));
    request["op"] = op;
    for (auto& [key, value] : extra) request[key] = value;
    return session_call(sandbox, std::move(request));
}

Response empty_ok() { return json_response(http::status::ok, json::object{}); }

Response list(const std::shared_ptr<ServedSandbox>& sandbox, const json::object&) {
    auto reply = session_call(sandbox, json::object{{"op", session_op::command_list}});
    if (auto* failure = std::get_if<Response>(&reply)) return std::move(*failure);
    json::array processes;
    const auto* listed = std::get<json::object>(reply).if_contains("processes");
    for (const auto& entry : listed && listed->is_array() ? listed->as_array() : json::array{}) {
        const auto& command = entry.as_object();
        // envd lists the processes that run: one that ended is gone from it (ours waits to be collected).
        if (const auto* running = command.if_contains("running"); !running || !running->is_bool() || !running->as_bool()) continue;
        json::object config{{"cmd", string_field(command, "cmd")}};
        const auto* args = command.if_contains("args");
        // A bash line (no args: the session's own callers) is what `/bin/bash -c` ran.
        config["args"] = args && args->is_array() ? *args : json::value(json::array{"-c", string_field(command, "cmd")});
        if (!(args && args->is_array())) config["cmd"] = "/bin/bash";
        if (const auto* envs = command.if_contains("envs"); envs && envs->is_object()) config["envs"] = *envs;
        if (const auto cwd = string_field(command, "cwd"); !cwd.empty()) config["cwd"] = cwd;
        json::object info{{"config", std::move(config)}, {"pid", command.at("pid")}};
        if (const auto tag = string_field(command, "tag"); !tag.empty()) info["tag"] = tag;
        processes.push_back(std::move(info));
    }
    return json_response(http::status::ok, json::object{{"processes", std::move(processes)}});
}

Response send_input(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    const auto* input = message.if_contains("input");
    if (!input || !input->is_object()) return connect_error("invalid_argument", "input (a ProcessInput: stdin or pty bytes) is required");
    // e2beval runs no process with a terminal: pty input goes to the process's stdin, as typed keys would.
    std::string encoded = string_field(input->as_object(), "stdin");
    if (encoded.empty()) encoded = string_field(input->as_object(), "pty");
    auto reply = on_process(sandbox, message, session_op::command_send_stdin, json::object{{"data_base64", encoded}});
    if (auto* failure = std::get_if<Response>(&reply)) return std::move(*failure);
    return empty_ok();
}

Response send_signal(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    const auto* signal = message.if_contains("signal");
    std::string name;
    if (signal && signal->is_string()) name = std::string(signal->as_string());
    else if (signal && signal->is_int64()) name = signal->as_int64() == 9 ? "SIGNAL_SIGKILL" : signal->as_int64() == 15 ? "SIGNAL_SIGTERM" : "";
    if (name != "SIGNAL_SIGKILL" && name != "SIGNAL_SIGTERM")
        return connect_error("invalid_argument", "signal must be SIGNAL_SIGKILL or SIGNAL_SIGTERM");
    auto reply = on_process(sandbox, message, session_op::command_kill, json::object{{"signal", name.substr(7)}});
    if (auto* failure = std::get_if<Response>(&reply)) return std::move(*failure);
    const auto* killed = std::get<json::object>(reply).if_contains("killed");
    // Nothing to signal (unknown, ended or already killed): envd's not_found, which the SDK's kill() turns into False.
    if (!killed || !killed->is_bool() || !killed->as_bool()) {
        auto selector = selector_fields(message);
        return not_found(std::get<json::object>(selector));
    }
    return empty_ok();
}

Response close_stdin(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    auto reply = on_process(sandbox, message, session_op::command_close_stdin);
    if (auto* failure = std::get_if<Response>(&reply)) return std::move(*failure);
    return empty_ok();
}

using Call = UnaryConnectCall;

Call process_call_named(std::string_view method) {
    if (method == "List") return list;
    if (method == "SendInput") return send_input;
    if (method == "SendSignal") return send_signal;
    if (method == "CloseStdin") return close_stdin;
    return nullptr;
}

}  // namespace

std::optional<Plan> plan_process_call(Exchange& exchange, std::shared_ptr<ServedSandbox> sandbox, std::string_view method) {
    const auto call = process_call_named(method);
    if (!call) return std::nullopt;
    return plan_unary_connect_call(exchange, std::move(sandbox), "process.Process/" + std::string(method), call);
}

std::variant<std::int64_t, Response> running_process_pid(const std::shared_ptr<ServedSandbox>& sandbox, const json::object& message) {
    auto selector = selector_fields(message);
    if (auto* problem = std::get_if<std::string>(&selector)) return connect_error("invalid_argument", *problem);
    const auto& wanted = std::get<json::object>(selector);
    auto reply = session_call(sandbox, json::object{{"op", session_op::command_list}});
    if (auto* failure = std::get_if<Response>(&reply)) return std::move(*failure);
    const auto* listed = std::get<json::object>(reply).if_contains("processes");
    for (const auto& entry : listed && listed->is_array() ? listed->as_array() : json::array{}) {
        const auto& command = entry.as_object();
        const auto* running = command.if_contains("running");
        if (!running || !running->is_bool() || !running->as_bool()) continue;
        const bool matches = wanted.contains("pid") ? command.at("pid") == wanted.at("pid")
                                                    : command.if_contains("tag") && command.at("tag") == wanted.at("tag");
        if (matches && command.at("pid").is_int64()) return command.at("pid").as_int64();
    }
    return not_found(wanted);
}

json::object wait_request(std::int64_t pid) { return {{"op", session_op::command_wait}, {"pid", pid}}; }

}  // namespace e2beval::server

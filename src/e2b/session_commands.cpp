// The session protocol's command ops over envd's process.Process (src/e2b/session_core.hpp). Every command is
// started with Start and followed on the engine for as long as it runs (E2B keeps a process running when its
// stream goes, so the follower is what sees its output and end): output goes to whoever follows it (a
// foreground run_command, command_wait) or is buffered until someone does; `end` goes to each follower, and the
// command is forgotten after the last one (docs/session-protocol.md, "Commands").
#include <csignal>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/json.hpp>

#include "core/base64.hpp"
#include "e2b/session_core.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"
#include "core/session_protocol.hpp"

namespace e2beval::e2b {

namespace json = boost::json;
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::uint64_t kBufferCapBytes = 1024 * 1024;  // per stream per command, as the local agent's cap
constexpr std::chrono::milliseconds kDefaultCommandTimeout{60'000};

json::object command_reply(json::object fields = {}) {
    fields["type"] = "reply";
    return fields;
}

// The bytes of `data` after `pending` that end on a whole UTF-8 character; the rest stays in `pending`.
std::string whole_characters(std::string& pending, const std::string& data) {
    std::string bytes = pending + data;
    std::size_t keep = bytes.size();
    // A lead byte within the last 3 bytes whose sequence runs past the end: hold it back for the next read.
    for (std::size_t back = 1; back <= 3 && back <= bytes.size(); ++back) {
        const auto byte = static_cast<unsigned char>(bytes[bytes.size() - back]);
        if ((byte & 0xC0) == 0x80) continue;  // a continuation byte: look further back
        const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
        if (length > back) keep = bytes.size() - back;
        break;
    }
    pending = bytes.substr(keep);
    return to_valid_utf8(std::string_view(bytes).substr(0, keep));
}

// Go's names for signals, as envd writes them ("signal: killed").
int signal_of_status(const std::string& status) {
    static const std::map<std::string, int> kNames = {{"hangup", SIGHUP},   {"interrupt", SIGINT}, {"quit", SIGQUIT},
                                                      {"aborted", SIGABRT}, {"killed", SIGKILL},   {"segmentation fault", SIGSEGV},
                                                      {"broken pipe", SIGPIPE}, {"alarm clock", SIGALRM}, {"terminated", SIGTERM},
                                                      {"bus error", SIGBUS}, {"floating point exception", SIGFPE}};
    if (!status.starts_with("signal: ")) return 0;
    const auto found = kNames.find(status.substr(8));
    return found == kNames.end() ? 0 : found->second;
}

json::object end_event(const ProcessEvent& end) {
    const int signal = end.exited ? 0 : signal_of_status(end.status);
    const int exit_code = signal ? 128 + signal : end.exit_code;
    json::value error = nullptr;
    if (signal) error = end.status;
    else if (exit_code != 0) error = end.error.empty() ? "exit status " + std::to_string(exit_code) : end.error;
    return {{"type", "end"}, {"exit_code", exit_code}, {"error", error}, {"timed_out", false}};
}

json::object killed_at_timeout() {
    return {{"type", "end"}, {"exit_code", 128 + SIGKILL}, {"error", "signal: killed"}, {"timed_out", true}};
}

void forget(SessionCore& core, const std::shared_ptr<RemoteCommand>& command) {
    const auto found = core.commands.find(command->pid);
    if (found != core.commands.end() && found->second == command) core.commands.erase(found);
}

void kill_in_background(const std::shared_ptr<SessionCore>& core, int pid) {
    asio::co_spawn(core->engine->io, [core, pid]() -> asio::awaitable<void> {
        try {
            co_await core->engine->api.send_signal(core->remote, pid, SIGKILL);
        } catch (const std::exception&) {
            // Ended meanwhile, or the sandbox is gone: either way it no longer runs.
        }
    }, asio::detached);
}

void deliver(const std::shared_ptr<SessionCore>& core, const std::shared_ptr<RemoteCommand>& command, const ProcessEvent& event);

// The command's end: to each follower (then it is forgotten), or kept for the command_wait that collects it.
void finish_command(const std::shared_ptr<SessionCore>& core, const std::shared_ptr<RemoteCommand>& command, json::object end) {
    for (const int stream : {0, 1})
        if (!command->partial_utf8[stream].empty()) {
            ProcessEvent rest;
            rest.kind = stream == 0 ? ProcessEvent::Kind::stdout_data : ProcessEvent::Kind::stderr_data;
            rest.data = to_valid_utf8(command->partial_utf8[stream]);
            command->partial_utf8[stream].clear();
            deliver(core, command, rest);
        }
    if (command->listeners.empty()) {
        command->end = std::move(end);
        return;
    }
    for (const auto& listener : command->listeners) {
        auto own = end;
        if (listener->timed_out) own["timed_out"] = true;
        listener->channel->finish(std::move(own));
        listener->control->request(CallControl::Stop::ended);
    }
    command->listeners.clear();
    forget(*core, command);
}

// Each event of the followed process, on the engine's thread.
void deliver(const std::shared_ptr<SessionCore>& core, const std::shared_ptr<RemoteCommand>& command, const ProcessEvent& event) {
    switch (event.kind) {
        case ProcessEvent::Kind::keepalive: return;
        case ProcessEvent::Kind::start: {
            command->pid = event.pid;
            core->commands[event.pid] = command;
            const json::object start{{"type", "start"}, {"pid", event.pid}};
            for (auto it = command->listeners.begin(); it != command->listeners.end();) {
                const auto& listener = *it;
                listener->channel->push(start);
                if (listener->kill_on_start) kill_in_background(core, event.pid);
                if (listener->start_only) {
                    listener->channel->finish(command_reply({{"pid", event.pid}}));
                    listener->control->request(CallControl::Stop::ended);
                    it = command->listeners.erase(it);
                } else {
                    ++it;
                }
            }
            return;
        }
        case ProcessEvent::Kind::stdout_data:
        case ProcessEvent::Kind::stderr_data: {
            const int stream = event.kind == ProcessEvent::Kind::stdout_data ? 0 : 1;
            const char* name = stream == 0 ? "stdout" : "stderr";
            auto text = whole_characters(command->partial_utf8[stream], event.data);
            if (text.empty()) return;
            json::object output{{"type", name}, {"text", text}, {"timestamp", utc_timestamp_now()}};
            if (!command->listeners.empty()) {
                for (const auto& listener : command->listeners) listener->channel->push(output);
                return;
            }
            // Nobody follows: kept for the next follower, up to the cap (then one notice, as the agent does).
            if (command->buffer_truncated[stream]) return;
            command->buffered_bytes[stream] += text.size();
            if (command->buffered_bytes[stream] > kBufferCapBytes) {
                command->buffer_truncated[stream] = true;
                command->buffered.push_back({{"type", "stderr"},
                                             {"text", std::string("[e2beval: ") + name + " truncated after 1 MiB]\n"},
                                             {"timestamp", utc_timestamp_now()}});
                return;
            }
            command->buffered.push_back(std::move(output));
            return;
        }
        case ProcessEvent::Kind::end: finish_command(core, command, end_event(event)); return;
    }
}

// The follower: Start, then every event to deliver() until the process ends.
asio::awaitable<void> follow(std::shared_ptr<SessionCore> core, std::shared_ptr<RemoteCommand> command, ProcessSpec spec,
                             std::chrono::milliseconds timeout) {
    std::exception_ptr failed;
    bool timed_out = false;
    try {
        co_await core->engine->api.run_process(core->remote, spec, timeout, [&](const ProcessEvent& event) {
            deliver(core, command, event);
            return true;
        });
    } catch (const CallError& broken) {
        if (broken.stage() == CallError::Stage::timeout) timed_out = true;
        else failed = std::current_exception();
    } catch (...) {
        failed = std::current_exception();
    }
    if (core->closed) co_return;
    if (timed_out) {
        // envd ended it at its timeout (or the stream's own deadline passed: then make sure it is gone).
        if (command->pid) kill_in_background(core, command->pid);
        finish_command(core, command, killed_at_timeout());
        co_return;
    }
    if (!failed) co_return;
    json::object answer;
    std::exception_ptr closed;
    try {
        answer = co_await failure_event(*core, failed);
    } catch (...) {
        closed = std::current_exception();
    }
    for (const auto& listener : command->listeners) {
        if (closed) listener->channel->fail(closed);
        else listener->channel->finish(answer);
        listener->control->request(CallControl::Stop::ended);
    }
    command->listeners.clear();
    // Its stream broke while the sandbox lives: what became of it is unknown here, so it is not kept.
    forget(*core, command);
}

// Waits while `listener` follows `command`: interrupts kill it, detach stops following, the wait's own
// timeout kills it (and its `end` says timed_out).
asio::awaitable<std::optional<json::object>> follow_until_end(std::shared_ptr<SessionCore> core, std::shared_ptr<RemoteCommand> command,
                                                              std::shared_ptr<CommandListener> listener,
                                                              std::optional<Clock::time_point> deadline) {
    auto& control = *listener->control;
    for (;;) {
        const bool deadline_passed = co_await control.wait(deadline);
        if (deadline_passed) {
            deadline.reset();
            listener->timed_out = true;
            if (command->pid) kill_in_background(core, command->pid);
            continue;
        }
        switch (control.stop()) {
            case CallControl::Stop::ended: co_return std::nullopt;  // deliver() sent the final event
            case CallControl::Stop::killed: std::rethrow_exception(core->closed_error());
            case CallControl::Stop::detach:
                std::erase(command->listeners, listener);
                co_return command_reply({{"detached", true}});
            case CallControl::Stop::interrupt:
                control.clear();
                if (command->pid) kill_in_background(core, command->pid);
                else listener->kill_on_start = true;
                continue;
            case CallControl::Stop::none: continue;
        }
    }
}

std::optional<std::vector<std::string>> string_list(const json::object& request, std::string_view key) {
    const auto* value = request.if_contains(key);
    if (!value || value->is_null()) return std::nullopt;
    if (!value->is_array()) throw input_error("\"" + std::string(key) + "\" must be a list of strings or null");
    std::vector<std::string> list;
    for (const auto& item : value->as_array()) {
        if (!item.is_string()) throw input_error("\"" + std::string(key) + "\" must hold strings only");
        list.emplace_back(item.as_string());
    }
    return list;
}

int pid_of(const json::object& request) {
    const auto* pid = request.if_contains("pid");
    if (!pid || !pid->is_int64()) throw input_error("\"pid\" (a process id) is required; the e2b backend does not select by tag");
    return static_cast<int>(pid->as_int64());
}

asio::awaitable<std::optional<json::object>> run_command(std::shared_ptr<SessionCore> core, json::object request,
                                                         std::shared_ptr<CallChannel> channel, std::shared_ptr<CallControl> control) {
    auto command = std::make_shared<RemoteCommand>();
    command->cmd = required_string(request, "cmd");
    command->args = string_list(request, "args");
    command->envs = string_map_field(request, "envs");
    command->cwd = optional_string(request, "cwd").value_or("");
    command->tag = optional_string(request, "tag").value_or("");
    const auto* background = request.if_contains("background");
    command->background = background && background->is_bool() && background->as_bool();
    const auto* stdin_field = request.if_contains("stdin");
    command->stdin_open = stdin_field && stdin_field->is_bool() && stdin_field->as_bool();
    const auto timeout_seconds = optional_number(request, "timeout");
    if (timeout_seconds && *timeout_seconds < 0) co_return failure("invalid", "\"timeout\" must be 0 (none) or a positive number of seconds");
    const auto timeout = timeout_seconds ? std::chrono::milliseconds(static_cast<long long>(*timeout_seconds * 1000.0)) : kDefaultCommandTimeout;
    // `user` is accepted and left to E2B's default user, as the local backend ignores it.

    ProcessSpec spec;
    if (command->args) {
        spec.cmd = command->cmd;
        spec.args = *command->args;
    } else {
        // What E2B's SDKs send for commands.run: a login bash running the line.
        spec.cmd = "/bin/bash";
        spec.args = {"-l", "-c", command->cmd};
    }
    spec.envs = command->envs;
    spec.cwd = command->cwd;
    spec.stdin = command->stdin_open;
    spec.tag = command->tag;

    auto listener = std::make_shared<CommandListener>();
    listener->channel = channel;
    listener->control = control;
    listener->start_only = command->background;
    command->listeners.push_back(listener);
    asio::co_spawn(core->engine->io, follow(core, command, std::move(spec), timeout), asio::detached);
    co_return co_await follow_until_end(core, command, listener, std::nullopt);
}

asio::awaitable<std::optional<json::object>> command_wait(std::shared_ptr<SessionCore> core, json::object request,
                                                          std::shared_ptr<CallChannel> channel, std::shared_ptr<CallControl> control) {
    const int pid = pid_of(request);
    const auto timeout_seconds = optional_number(request, "timeout");
    const auto found = core->commands.find(pid);
    if (found == core->commands.end())
        co_return failure("not_found", "no command with pid " + std::to_string(pid) + " to wait for (it ended and was collected, or this session did not start it)");
    auto command = found->second;
    // What was buffered while nobody followed goes to this follower first.
    for (auto& event : command->buffered) channel->push(std::move(event));
    command->buffered.clear();
    if (command->end) {
        forget(*core, command);
        co_return std::move(*command->end);
    }
    auto listener = std::make_shared<CommandListener>();
    listener->channel = channel;
    listener->control = control;
    command->listeners.push_back(listener);
    std::optional<Clock::time_point> deadline;
    if (timeout_seconds && *timeout_seconds > 0) deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(*timeout_seconds * 1000.0));
    co_return co_await follow_until_end(core, command, listener, deadline);
}

// envd's messages, made outside the coroutines (GCC 12 mishandles JSON temporaries inside a co_await's expression).
json::object process_selector(int pid) { return {{"process", json::object{{"pid", pid}}}}; }
json::object input_message(int pid, const std::string& stdin_base64) {
    auto message = process_selector(pid);
    message["input"] = json::object{{"stdin", stdin_base64}};
    return message;
}

asio::awaitable<json::object> unary_command(std::shared_ptr<SessionCore> core, const std::string& op, const json::object& request) {
    auto& api = core->engine->api;
    if (op == session_op::command_list) {
        auto empty = json::object();
        const auto listed = co_await api.envd_call(core->remote, "process.Process/List", std::move(empty), true);
        json::array processes;
        std::set<int> seen;
        if (const auto* items = listed.if_contains("processes"); items && items->is_array())
            for (const auto& item : items->as_array()) {
                if (!item.is_object()) continue;
                const auto& process = item.as_object();
                const int pid = static_cast<int>(process.contains("pid") && process.at("pid").is_int64() ? process.at("pid").as_int64() : 0);
                seen.insert(pid);
                json::object row{{"pid", pid}, {"running", true}};
                if (const auto known = core->commands.find(pid); known != core->commands.end()) {
                    const auto& command = *known->second;
                    row["cmd"] = command.cmd;
                    row["args"] = command.args ? json::value(json::value_from(*command.args)) : json::value(nullptr);
                    row["envs"] = json::value_from(command.envs);
                    row["cwd"] = command.cwd;
                    row["tag"] = command.tag.empty() ? json::value(nullptr) : json::value(command.tag);
                    row["background"] = command.background;
                } else {
                    // A process this session did not start (another client of the same sandbox): envd's view.
                    const auto* config = process.if_contains("config");
                    const auto& fields = config && config->is_object() ? config->as_object() : json::object{};
                    row["cmd"] = fields.contains("cmd") ? fields.at("cmd") : json::value("");
                    row["args"] = fields.contains("args") ? fields.at("args") : json::value(nullptr);
                    row["envs"] = fields.contains("envs") ? fields.at("envs") : json::value(json::object{});
                    row["cwd"] = fields.contains("cwd") ? fields.at("cwd") : json::value("");
                    row["tag"] = process.contains("tag") ? process.at("tag") : json::value(nullptr);
                    row["background"] = true;
                }
                processes.push_back(std::move(row));
            }
        // Ended ones nobody collected yet are the protocol's too (envd no longer lists them).
        for (const auto& [pid, command] : core->commands)
            if (command->end && !seen.contains(pid))
                processes.push_back(json::object{{"pid", pid}, {"cmd", command->cmd},
                                                 {"args", command->args ? json::value(json::value_from(*command->args)) : json::value(nullptr)},
                                                 {"envs", json::value_from(command->envs)}, {"cwd", command->cwd},
                                                 {"tag", command->tag.empty() ? json::value(nullptr) : json::value(command->tag)},
                                                 {"running", false}, {"background", command->background}});
        co_return command_reply({{"processes", std::move(processes)}});
    }
    const int pid = pid_of(request);
    const auto known = core->commands.find(pid);
    const RemoteCommand* command = known == core->commands.end() ? nullptr : known->second.get();
    if (op == session_op::command_kill) {
        const auto name = optional_string(request, "signal").value_or("SIGKILL");
        if (name != "SIGKILL" && name != "SIGTERM") co_return failure("invalid", "\"signal\" must be SIGKILL or SIGTERM (what envd sends)");
        if (command && command->end) co_return command_reply({{"killed", false}});
        bool killed = true;
        try {
            co_await api.send_signal(core->remote, pid, name == "SIGKILL" ? SIGKILL : SIGTERM);
        } catch (const ApiError& refused) {
            if (!(refused.code() == "not_found" || refused.status() == 404)) throw;
            killed = false;  // unknown or already ended
        }
        co_return command_reply({{"killed", killed}});
    }
    if (command && command->end) co_return failure("invalid", "command " + std::to_string(pid) + " has ended: its stdin is gone");
    if (command && !command->stdin_open)
        co_return failure("invalid", "command " + std::to_string(pid) + " was started without stdin (or its stdin was closed); start it with stdin=True");
    if (op == session_op::command_send_stdin) {
        const auto text = optional_string(request, "data");
        const auto encoded = optional_string(request, "data_base64");
        if (text.has_value() == encoded.has_value()) co_return failure("invalid", "give one of \"data\" (text) and \"data_base64\" (bytes)");
        if (encoded) base64_decode(*encoded);  // invalid base64 → input_error
        auto message = input_message(pid, encoded ? *encoded : base64_encode(*text));
        co_await api.envd_call(core->remote, "process.Process/SendInput", std::move(message), false);
        co_return command_reply();
    }
    if (op == session_op::command_close_stdin) {
        auto message = process_selector(pid);
        co_await api.envd_call(core->remote, "process.Process/CloseStdin", std::move(message), true);
        if (known != core->commands.end()) known->second->stdin_open = false;
        co_return command_reply();
    }
    co_return failure("invalid", "unknown op '" + op + "'; docs/session-protocol.md lists the ops");
}

}  // namespace

asio::awaitable<std::optional<json::object>> serve_command_request(std::shared_ptr<SessionCore> core, const std::string& op,
                                                                   json::object request, std::shared_ptr<CallChannel> channel,
                                                                   std::shared_ptr<CallControl> control) {
    if (op == session_op::run_command) co_return co_await run_command(core, std::move(request), channel, control);
    if (op == session_op::command_wait) co_return co_await command_wait(core, std::move(request), channel, control);
    std::exception_ptr failed;
    try {
        co_return co_await unary_command(core, op, request);
    } catch (...) {
        failed = std::current_exception();
    }
    co_return co_await failure_event(*core, failed);
}

}  // namespace e2beval::e2b

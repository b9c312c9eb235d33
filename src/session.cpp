// The typed helpers of Session: thin wrappers over call() that gather a request's events into values.
#include "e2beval/session.hpp"

#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <thread>
#include <utility>

#include "e2beval/core/error.hpp"
#include "core/base64.hpp"
#include "core/json_fields.hpp"
#include "core/session_protocol.hpp"

namespace e2beval {

// A backend with no asynchronous I/O of its own (E2B's, whose calls are HTTP requests made by call()): the blocking
// call runs on a thread of its own and completes on `io`; cancellation reaches it as a CallInterrupt.
void Session::initiate_call(boost::asio::any_io_executor io, boost::json::object request, SessionEventHandler on_event,
                            std::optional<std::chrono::milliseconds> request_timeout, CallHandler& handler) {
    auto interrupt = std::make_shared<CallInterrupt>();
    auto slot = boost::asio::get_associated_cancellation_slot(handler);
    if (slot.is_connected())
        slot.assign([interrupt](boost::asio::cancellation_type type) {
            interrupt->interrupt(type == boost::asio::cancellation_type::partial ? CallInterrupt::Mode::detach
                                                                                : CallInterrupt::Mode::stop);
        });
    // Events are handed to `io` as they come, in order, like a native backend's.
    auto forward = [io, on_event = std::move(on_event)](const SessionEvent& event) {
        if (on_event) boost::asio::post(io, [on_event, event] { on_event(event); });
    };
    std::thread([this, io, interrupt, slot, request = std::move(request), forward = std::move(forward), request_timeout,
                 handler = std::move(handler)]() mutable {
        std::exception_ptr failure;
        SessionEvent final_event;
        try {
            final_event = call(std::move(request), forward, request_timeout, interrupt.get());
        } catch (...) {
            failure = std::current_exception();
        }
        boost::asio::post(io, [slot, failure, final_event = std::move(final_event), handler = std::move(handler)]() mutable {
            auto caller_slot = slot;
            if (caller_slot.is_connected()) caller_slot.clear();
            std::move(handler)(failure, std::move(final_event));
        });
    }).detach();
}

void CallInterrupt::interrupt(Mode mode) {
    std::function<void(Mode)> action;
    {
        std::lock_guard lock(mutex_);
        if (finished_) return;  // its call returned: nothing left to interrupt
        if (!action_) {
            requested_ = mode;  // the call has not started yet: it is interrupted once it is sent
            return;
        }
        action = action_;
    }
    action(mode);
}

void CallInterrupt::bind(std::function<void(Mode)> action) {
    std::optional<Mode> early;
    {
        std::lock_guard lock(mutex_);
        action_ = action;
        finished_ = false;
        early = std::exchange(requested_, std::nullopt);
    }
    if (early) action(*early);
}

void CallInterrupt::unbind() {
    std::lock_guard lock(mutex_);
    action_ = nullptr;
    requested_.reset();
    finished_ = true;
}

namespace json = boost::json;

namespace {

// A "failure" event as an exception: the agent's message says what was wrong and what to do.
[[noreturn]] void throw_failure(const json::object& event) {
    const auto kind = string_field(event, "kind");
    const auto message = string_field(event, "message");
    if (kind == "invalid" || kind == "unsupported" || kind == "not_found") throw input_error(message);
    if (kind == "timeout") throw sandbox_error(message, errc::session_closed);  // the host killed the session
    throw io_error(message);
}

json::object checked(json::object final_event) {
    if (string_field(final_event, "type") == "failure") throw_failure(final_event);
    return final_event;
}

double seconds(std::chrono::milliseconds duration) { return static_cast<double>(duration.count()) / 1000.0; }

std::string_view op_of(const json::object& request) {
    const auto* op = request.if_contains("op");
    return op && op->is_string() ? std::string_view(op->as_string()) : std::string_view();
}

bool is_true(const json::object& request, std::string_view key) {
    const auto* value = request.if_contains(key);
    return value && value->is_bool() && value->as_bool();
}

// A `timeout` field in seconds: nullopt when absent or null, 0 ms when "no bound".
std::optional<std::chrono::milliseconds> seconds_field(const json::object& request, std::string_view key) {
    const auto* value = request.if_contains(key);
    if (!value || !value->is_number()) return std::nullopt;
    const double seconds = value->to_number<double>();
    if (!std::isfinite(seconds) || seconds <= 0) return std::chrono::milliseconds(0);
    // Past a year is "no bound" too (and keeps the arithmetic below far from overflow).
    if (seconds > 365.0 * 86400.0) return std::chrono::milliseconds(0);
    return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000.0)));
}

std::optional<std::chrono::milliseconds> bounded(std::chrono::milliseconds duration) {
    if (duration.count() <= 0) return std::nullopt;
    return duration;
}

}  // namespace

bool session_request_streams(const json::object& request) {
    const auto op = op_of(request);
    return op == session_op::run_code || (op == session_op::run_command && !is_true(request, "background")) || op == session_op::command_wait;
}

std::optional<std::chrono::milliseconds> session_request_budget(const json::object& request,
                                                                std::optional<std::chrono::milliseconds> request_timeout) {
    const auto op = op_of(request);
    if (op == session_op::run_code || op == session_op::command_wait) {
        const auto timeout = seconds_field(request, "timeout");
        return timeout ? bounded(*timeout) : std::nullopt;
    }
    if (op == session_op::run_command && !is_true(request, "background"))
        return bounded(seconds_field(request, "timeout").value_or(kSessionCommandTimeout));
    return bounded(request_timeout.value_or(kSessionRequestTimeout));
}


std::optional<std::string> Execution::text() const {
    for (const auto& result : results)
        if (const auto* main = result.if_contains("is_main_result"); main && main->is_bool() && main->as_bool())
            return string_field(result, "text");
    return std::nullopt;
}

Execution Session::run_code(const std::string& code, const std::optional<std::string>& language,
                            const std::optional<std::string>& context, std::optional<std::chrono::milliseconds> timeout,
                            const SessionEventHandler& on_event) {
    json::object request{{"op", session_op::run_code}, {"code", code}};
    if (language) request["language"] = *language;
    if (context) request["context"] = *context;
    if (timeout) request["timeout"] = seconds(*timeout);
    Execution execution;
    checked(call(std::move(request), [&](const SessionEvent& event) {
        const auto type = string_field(event, "type");
        if (type == "stdout" || type == "stderr")
            (type == "stdout" ? execution.stdout_chunks : execution.stderr_chunks)
                .push_back({string_field(event, "text"), std::chrono::system_clock::now()});
        else if (type == "result")
            execution.results.push_back(event);
        else if (type == "error")
            execution.error = Execution::Error{string_field(event, "name"), string_field(event, "value"),
                                               string_field(event, "traceback")};
        else if (type == "number_of_executions" && event.at("execution_count").is_int64())
            execution.execution_count = static_cast<int>(event.at("execution_count").as_int64());
        else if (type == "timeout") {
            execution.timed_out = true;
            if (const auto* restarted = event.if_contains("context_restarted"); restarted && restarted->is_bool())
                execution.context_restarted = restarted->as_bool();
        }
        if (on_event) on_event(event);
    }));
    return execution;
}

CommandOutput Session::run_command(const std::string& command, std::optional<std::chrono::milliseconds> timeout) {
    json::object request{{"op", session_op::run_command}, {"cmd", command}, {"background", false}};
    if (timeout) request["timeout"] = seconds(*timeout);
    CommandOutput output;
    const auto end = checked(call(std::move(request), [&](const SessionEvent& event) {
        const auto type = string_field(event, "type");
        if (type == "stdout") output.stdout_data += string_field(event, "text");
        if (type == "stderr") output.stderr_data += string_field(event, "text");
    }));
    if (const auto* code = end.if_contains("exit_code"); code && code->is_int64()) output.exit_code = static_cast<int>(code->as_int64());
    if (const auto* message = end.if_contains("error"); message && message->is_string()) output.error = std::string(message->as_string());
    if (const auto* timed_out = end.if_contains("timed_out"); timed_out && timed_out->is_bool()) output.timed_out = timed_out->as_bool();
    return output;
}

void Session::write_file(const std::string& path, const std::string& bytes) {
    checked(call({{"op", session_op::files_write}, {"path", path}, {"data", base64_encode(bytes)}}));
}

std::string Session::read_file(const std::string& path) {
    const auto reply = checked(call({{"op", session_op::files_read}, {"path", path}}));
    return base64_decode(string_field(reply, "data"));
}

void SessionRegistry::add(const std::shared_ptr<Session>& session) {
    std::lock_guard lock(mutex_);
    std::erase_if(sessions_, [](const std::weak_ptr<Session>& kept) { return kept.expired(); });
    sessions_.push_back(session);
}

std::vector<SessionInfo> SessionRegistry::list() {
    std::lock_guard lock(mutex_);
    std::vector<SessionInfo> infos;
    for (const auto& kept : sessions_)
        if (auto session = kept.lock(); session && session->alive()) infos.push_back(session->info());
    return infos;
}

std::shared_ptr<Session> SessionRegistry::find(const std::string& id) {
    std::lock_guard lock(mutex_);
    for (const auto& kept : sessions_)
        if (auto session = kept.lock(); session && session->id() == id && session->alive()) return session;
    return nullptr;
}

}  // namespace e2beval

// See session_deadline.hpp.
#include "local/session_deadline.hpp"

#include <string_view>

namespace e2beval::local {

namespace json = boost::json;

namespace {

std::string_view op_of(const json::object& request) {
    const auto* op = request.if_contains("op");
    return op && op->is_string() ? std::string_view(op->as_string()) : std::string_view();
}

bool is_true(const json::object& request, std::string_view key) {
    const auto* value = request.if_contains(key);
    return value && value->is_bool() && value->as_bool();
}

}  // namespace

bool streams_events(const json::object& request) {
    const auto op = op_of(request);
    return op == "run_code" || (op == "run_command" && !is_true(request, "background")) || op == "command_wait";
}

std::optional<std::chrono::milliseconds> operation_budget(const json::object& request,
                                                          std::optional<std::chrono::milliseconds> request_timeout) {
    return session_request_budget(request, request_timeout);
}

CallDeadline::CallDeadline(std::optional<std::chrono::milliseconds> budget, std::chrono::steady_clock::time_point start)
    : budget_(budget),
      next_(budget ? start + *budget + kAnswerMargin : std::chrono::steady_clock::time_point::max()) {}

bool CallDeadline::start_probe(std::chrono::steady_clock::time_point now) {
    if (phase_ != Phase::waiting) return false;
    phase_ = Phase::probing;
    next_ = now + kProbeWindow;
    return true;
}

void CallDeadline::agent_alive(std::chrono::steady_clock::time_point now) {
    if (phase_ != Phase::probing) return;
    phase_ = Phase::alive;
    next_ = now + kLiveAgentGrace;
}

}  // namespace e2beval::local

// See session_deadline.hpp.
#include "local/session_deadline.hpp"

#include <cmath>
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

bool streams_events(const json::object& request) {
    const auto op = op_of(request);
    return op == "run_code" || (op == "run_command" && !is_true(request, "background")) || op == "command_wait";
}

std::optional<std::chrono::milliseconds> operation_budget(const json::object& request,
                                                          std::optional<std::chrono::milliseconds> request_timeout) {
    const auto op = op_of(request);
    if (op == "run_code" || op == "command_wait") {
        const auto timeout = seconds_field(request, "timeout");
        return timeout ? bounded(*timeout) : std::nullopt;
    }
    if (op == "run_command" && !is_true(request, "background"))
        return bounded(seconds_field(request, "timeout").value_or(kDefaultCommandTimeout));
    return bounded(request_timeout.value_or(kDefaultRequestTimeout));
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

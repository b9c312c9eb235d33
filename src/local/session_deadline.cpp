// See session_deadline.hpp.
#include "local/session_deadline.hpp"

namespace e2beval::local {

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

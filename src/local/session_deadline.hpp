// The host's own deadline for one session call. The agent enforces every operation's timeout, but the agent
// runs next to the code it serves, so the host never relies on it answering: each call gets a deadline from
// the SDK's arguments (E2B's rules, below), and an agent that neither answers by then nor shows it is alive
// has stalled the call; the caller is told so and the session is killed.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <optional>

#include "e2beval/session.hpp"

namespace e2beval::local {

// E2B's SDKs: `timeout` bounds a streaming operation as a whole (run_code, a foreground command, waiting for
// a command; 0 or absent: no bound), `request_timeout` every other request (default 60 s, 0: no bound).
inline constexpr std::chrono::milliseconds kDefaultRequestTimeout = kSessionRequestTimeout;
inline constexpr std::chrono::milliseconds kDefaultCommandTimeout = kSessionCommandTimeout;  // the agent's default too

// A call's budget is session_request_budget (e2beval/session.hpp, shared by every backend); nullopt when
// unbounded (the call then waits at most until the session's own lifetime ends, which kills it).

// The host's side of one call's clock, in three phases: until `budget` + kAnswerMargin it waits for the
// final event; then it asks the agent whether it is alive (a "ping", answered even while a request
// streams) and waits kProbeWindow for the answer; an agent that answers may still be finishing a slow
// timeout (a cell that ignores its interrupt is killed and its context restarted), so it gets up to
// kLiveAgentGrace more. An agent that does not answer the ping, or outlives the grace, has stalled.
class CallDeadline {
public:
    static constexpr std::chrono::milliseconds kAnswerMargin{250};
    static constexpr std::chrono::milliseconds kProbeWindow{400};
    static constexpr std::chrono::milliseconds kLiveAgentGrace{15'000};

    enum class Phase { waiting, probing, alive };

    explicit CallDeadline(std::optional<std::chrono::milliseconds> budget,
                          std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now());

    std::chrono::steady_clock::time_point next() const noexcept { return next_; }
    Phase phase() const noexcept { return phase_; }
    std::optional<std::chrono::milliseconds> budget() const noexcept { return budget_; }

    // The deadline passed while waiting: start probing (returns true), or, in any other phase, the agent
    // has stalled (returns false).
    bool start_probe(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
    // The agent answered the probe.
    void agent_alive(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

private:
    std::optional<std::chrono::milliseconds> budget_;
    Phase phase_ = Phase::waiting;
    std::chrono::steady_clock::time_point next_;
};

}  // namespace e2beval::local

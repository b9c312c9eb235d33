// When the E2B client sends a call again, and how long it waits first: jittered exponential back-off,
// a server's Retry-After honoured (capped by the call's deadline).
#pragma once

#include <chrono>
#include <optional>
#include <random>
#include <string_view>

namespace e2beval::e2b {

struct RetryPolicy {
    unsigned max_attempts = 5;                    // the first try included
    std::chrono::milliseconds base_delay{200};    // before the first retry (then doubled each time)
    std::chrono::milliseconds max_delay{8'000};   // one back-off's cap
    std::chrono::milliseconds max_retry_after{30'000};  // a longer Retry-After is not waited for: the call fails

    // The wait before attempt `attempt` (1 = the first retry): "full jitter" (AWS's back-off article), a
    // uniform draw in [delay/2, delay] so that many clients refused at once do not come back at once.
    std::chrono::milliseconds backoff(unsigned attempt, std::mt19937_64& random) const;
};

// Retry-After's value: delay-seconds ("3") or an HTTP date; nullopt when it is neither.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

// Statuses that say "try again later": 429, and 502/503/504 (a proxy or an overloaded server).
inline bool is_retryable_status(unsigned status) { return status == 429 || status == 502 || status == 503 || status == 504; }

}  // namespace e2beval::e2b

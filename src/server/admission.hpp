// The server's limits on creating sandboxes: how many may live at once and how many may be created per second
// (a token bucket). A refusal says which limit and when to try again, for a 429 the SDKs map to
// RateLimitException.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

namespace e2beval::server {

struct AdmissionLimits {
    std::size_t max_live_sandboxes = 20;  // E2B's Hobby tier
    double creations_per_second = 5;      // E2B's Pro tier; bursts of up to this many
};

struct Refusal {
    std::string message;
    std::optional<int> retry_after_seconds;  // absent: waiting alone will not help (kill a sandbox first)
};

class Admission {
public:
    explicit Admission(AdmissionLimits limits);
    // Takes a creation slot, or says why not. `live` is the number of sandboxes alive now. A taken slot is
    // given back with release() once the creation failed or the sandbox is counted among the live ones.
    std::optional<Refusal> admit(std::size_t live);
    void release();

private:
    AdmissionLimits limits_;
    std::mutex mutex_;
    std::size_t creating_ = 0;
    double tokens_;
    std::chrono::steady_clock::time_point refilled_;
};

}  // namespace e2beval::server

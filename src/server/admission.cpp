// Limits on creating sandboxes: live count (with the creations in flight) and a creation-rate token bucket.
#include "server/admission.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace e2beval::server {

namespace {
std::string rate_text(double per_second) {
    std::ostringstream text;
    text << per_second;
    return text.str();
}
}  // namespace

Admission::Admission(AdmissionLimits limits)
    : limits_(limits), tokens_(std::max(1.0, limits.creations_per_second)), refilled_(std::chrono::steady_clock::now()) {}

std::optional<Refusal> Admission::admit(std::size_t live) {
    std::lock_guard lock(mutex_);
    if (live + creating_ >= limits_.max_live_sandboxes)
        return Refusal{"this server runs at most " + std::to_string(limits_.max_live_sandboxes) +
                           " sandboxes at once (e2beval serve --max-sandboxes); kill one first",
                       std::nullopt};
    const auto now = std::chrono::steady_clock::now();
    const double burst = std::max(1.0, limits_.creations_per_second);
    tokens_ = std::min(burst, tokens_ + std::chrono::duration<double>(now - refilled_).count() * limits_.creations_per_second);
    refilled_ = now;
    if (tokens_ < 1.0) {
        const double wait = (1.0 - tokens_) / limits_.creations_per_second;
        return Refusal{"this server creates at most " + rate_text(limits_.creations_per_second) +
                           " sandboxes per second (e2beval serve --creation-rate); try again shortly",
                       static_cast<int>(std::ceil(wait))};
    }
    tokens_ -= 1.0;
    ++creating_;
    return std::nullopt;
}

void Admission::release() {
    std::lock_guard lock(mutex_);
    if (creating_ > 0) --creating_;
}

}  // namespace e2beval::server

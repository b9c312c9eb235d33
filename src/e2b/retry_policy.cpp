// Back-off and Retry-After for the E2B client (src/e2b/retry_policy.hpp).
#include "e2b/retry_policy.hpp"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <string>

namespace e2beval::e2b {

std::chrono::milliseconds RetryPolicy::backoff(unsigned attempt, std::mt19937_64& random) const {
    const unsigned shift = std::min(attempt > 0 ? attempt - 1 : 0u, 16u);
    const auto delay = std::min<long long>(base_delay.count() << shift, max_delay.count());
    std::uniform_int_distribution<long long> draw(delay / 2, delay);
    return std::chrono::milliseconds(draw(random));
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    if (value.empty()) return std::nullopt;
    long long seconds = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (error == std::errc() && end == value.data() + value.size()) {
        if (seconds < 0) return std::nullopt;
        return std::chrono::milliseconds(std::min<long long>(seconds, 86'400) * 1000);
    }
    // IMF-fixdate: "Wed, 21 Oct 2015 07:28:00 GMT".
    std::tm parts{};
    const std::string text(value);
    if (!strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &parts)) return std::nullopt;
    const auto at = std::chrono::system_clock::from_time_t(timegm(&parts));
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(at - std::chrono::system_clock::now());
    return std::max(wait, std::chrono::milliseconds(0));
}

}  // namespace e2beval::e2b

// See agent_lines.hpp.
#include "local/agent_lines.hpp"

#include <utility>

namespace e2beval::local {

std::optional<AgentLine> AgentLines::next(std::size_t max_line_bytes) {
    if (const auto newline = buffer_.find('\n', scanned_); newline != std::string::npos) {
        if (discarding_) {
            const std::size_t bytes = discarded_ + newline;
            buffer_.erase(0, newline + 1);
            scanned_ = 0;
            discarding_ = false;
            discarded_ = 0;
            return AgentLine{AgentLine::Kind::too_long, {}, bytes, std::exchange(discarded_id_, std::nullopt)};
        }
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        scanned_ = 0;
        if (line.size() > max_line_bytes) return AgentLine{AgentLine::Kind::too_long, {}, line.size(), leading_id(line)};
        return AgentLine{AgentLine::Kind::line, std::move(line)};
    }
    if (discarding_ || buffer_.size() > max_line_bytes) {
        if (!discarding_) discarded_id_ = leading_id(buffer_);
        discarding_ = true;
        discarded_ += buffer_.size();
        buffer_.clear();
    }
    scanned_ = buffer_.size();
    return std::nullopt;
}

std::optional<std::int64_t> AgentLines::leading_id(std::string_view text) {
    constexpr std::string_view prefix = "{\"id\":";
    if (!text.starts_with(prefix)) return std::nullopt;
    std::size_t at = prefix.size();
    const bool negative = at < text.size() && text[at] == '-';
    if (negative) ++at;
    std::int64_t value = 0;
    const std::size_t digits_from = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9' && at - digits_from < 18)
        value = value * 10 + (text[at++] - '0');
    if (at == digits_from || at >= text.size() || (text[at] != ',' && text[at] != '}')) return std::nullopt;
    return negative ? -value : value;
}

}  // namespace e2beval::local

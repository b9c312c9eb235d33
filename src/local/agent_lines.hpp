// The session agent's stdout cut into lines (docs/session-protocol.md: one JSON object per line, the request's
// id first). No I/O: the owner appends what it read and takes whole lines. A line longer than the cap of the
// moment is never held whole: its bytes are dropped as they come and it is reported as too long, with the id
// its first bytes named.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace e2beval::local {

struct AgentLine {
    enum class Kind { line, too_long };
    Kind kind = Kind::line;
    std::string text;       // Kind::line: the line, without its newline
    std::size_t bytes = 0;  // Kind::too_long: how many bytes were discarded
    std::optional<std::int64_t> id = std::nullopt;  // Kind::too_long: whose line it was, from its first bytes
};

class AgentLines {
public:
    void append(std::string_view bytes) { buffer_.append(bytes); }
    // The next whole line, or nullopt until more bytes come. `max_line_bytes`: the longest line kept.
    std::optional<AgentLine> next(std::size_t max_line_bytes);
    // Nothing buffered, not even part of a line.
    bool empty() const noexcept { return buffer_.empty() && !discarding_; }

    // `{"id":N` at the start of a line: the agent's own envelope (json.dumps keeps the key order it builds).
    static std::optional<std::int64_t> leading_id(std::string_view text);

private:
    std::string buffer_;
    std::size_t scanned_ = 0;  // no newline before this offset
    bool discarding_ = false;  // inside a line past the cap: its bytes are dropped up to its newline
    std::size_t discarded_ = 0;
    std::optional<std::int64_t> discarded_id_;  // whose line is being discarded
};

}  // namespace e2beval::local

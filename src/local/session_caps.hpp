// Caps on what one session call may send the host. The agent runs next to the code it serves and may be
// made to send anything, so the host bounds each line, each call's bytes and events, and JSON nesting; what
// is past a cap is dropped (read and discarded, so the agent never blocks) and the caller sees a marker,
// never an exception that loses the cell. docs/sessions.md lists the caps.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "e2beval/core/types.hpp"

namespace e2beval::local {

struct CallCaps {
    std::size_t line_bytes;   // one event (one line); a longer line is dropped whole
    std::size_t total_bytes;  // the output events (stdout, stderr, results) of one call together
    std::size_t events;       // the output events of one call
    std::size_t json_depth;   // nesting inside one event; deeper values become a marker string
};

inline constexpr std::size_t kEventLineBytes = std::size_t{32} << 20;
inline constexpr std::size_t kCallOutputBytes = std::size_t{64} << 20;
inline constexpr std::size_t kCallOutputEvents = 100'000;
inline constexpr std::size_t kEventJsonDepth = 128;

// The caps of `request` in a session with `limits`: files_read's reply carries a whole file (base64), so its
// line may be as long as the largest file the session can hold.
CallCaps call_caps(const boost::json::object& request, const Limits& limits);

// What replaces a value nested deeper than the cap.
std::string deep_value_marker(std::size_t depth);

// One line from the agent as a JSON object, with every value nested deeper than `max_depth` replaced by
// deep_value_marker(); nullopt when the line is not a JSON object at all.
std::optional<boost::json::object> parse_agent_event(std::string_view line, std::size_t max_depth);

// Counts one call's output events against its caps and says what was dropped.
class CallIntake {
public:
    explicit CallIntake(const CallCaps& caps) : caps_(caps) {}

    // Whether an event of `type`, `line_bytes` long, reaches the caller. Output events (stdout, stderr,
    // result and any unknown type) count against the caps; the few control events (error, timeout,
    // number_of_executions, start) replace rather than add to what the caller holds, so they always pass.
    bool accept(std::string_view type, std::size_t line_bytes);
    void dropped_long_line(std::size_t bytes);
    void dropped_malformed_line(std::size_t bytes);

    bool dropped_anything() const noexcept { return dropped_events_ + long_lines_ + malformed_lines_ > 0; }
    // The notice the caller sees (a stderr event of the call): what was dropped, and why.
    boost::json::object marker_event(std::int64_t request_id) const;

private:
    CallCaps caps_;
    std::size_t accepted_bytes_ = 0;
    std::size_t accepted_events_ = 0;
    std::size_t dropped_events_ = 0;
    std::size_t dropped_bytes_ = 0;
    std::size_t long_lines_ = 0;
    std::size_t malformed_lines_ = 0;
};

}  // namespace e2beval::local

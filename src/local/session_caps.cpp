// See session_caps.hpp.
#include "local/session_caps.hpp"

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "core/session_protocol.hpp"

namespace e2beval::local {

namespace json = boost::json;

namespace {

std::string mib(std::size_t bytes) {
    const double value = static_cast<double>(bytes) / double(1 << 20);
    char text[32];
    std::snprintf(text, sizeof text, value < 10 ? "%.1f MiB" : "%.0f MiB", value);
    return text;
}

bool is_control_event(std::string_view type) {
    return type == "error" || type == "timeout" || type == "number_of_executions" || type == "start";
}

// Copies `line`, replacing each value that opens below `max_depth` levels with the marker. Strings are
// skipped whole (brackets inside them are text). Returns nullopt when nothing is that deep.
std::optional<std::string> without_deep_values(std::string_view line, std::size_t max_depth) {
    std::size_t depth = 0;
    bool in_string = false, escaped = false, found = false;
    for (const char c : line) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '{' || c == '[') {
            if (++depth > max_depth) {
                found = true;
                break;
            }
        } else if ((c == '}' || c == ']') && depth > 0) --depth;
    }
    if (!found) return std::nullopt;

    const std::string marker = json::serialize(json::value(deep_value_marker(max_depth)));
    std::string out;
    out.reserve(line.size());
    depth = 0;
    in_string = escaped = false;
    std::size_t skipping_from = 0;  // the depth of the value being dropped; 0 when copying
    for (const char c : line) {
        const bool copying = skipping_from == 0;
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            if (copying) out += c;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max_depth && copying) {
                skipping_from = depth;
                out += marker;
                continue;
            }
        } else if ((c == '}' || c == ']') && depth > 0) {
            if (skipping_from != 0 && depth == skipping_from) {
                skipping_from = 0;
                --depth;
                continue;
            }
            --depth;
        }
        if (skipping_from == 0) out += c;
    }
    return out;
}

}  // namespace

CallCaps call_caps(const json::object& request, const Limits& limits) {
    CallCaps caps{kEventLineBytes, kCallOutputBytes, kCallOutputEvents, kEventJsonDepth};
    const auto* op = request.if_contains("op");
    if (op && op->is_string() && op->as_string() == session_op::files_read) {
        const std::size_t file_bytes = static_cast<std::size_t>(limits.file_size_bytes);
        const std::size_t base64_bytes = (file_bytes + 2) / 3 * 4;
        caps.line_bytes = std::max(caps.line_bytes, base64_bytes + (std::size_t{1} << 20));
    }
    return caps;
}

std::string deep_value_marker(std::size_t depth) {
    return "[e2beval: value dropped: nested deeper than " + std::to_string(depth) +
           " levels, the most the host accepts from a session]";
}

std::optional<json::object> parse_agent_event(std::string_view line, std::size_t max_depth) {
    const auto flattened = without_deep_values(line, max_depth);
    json::parse_options options;
    options.max_depth = max_depth + 2;  // the marker leaves at most max_depth levels; a little headroom
    boost::system::error_code ec;
    auto value = json::parse(flattened ? std::string_view(*flattened) : line, ec, {}, options);
    if (ec || !value.is_object()) return std::nullopt;
    return std::move(value.as_object());
}

bool CallIntake::accept(std::string_view type, std::size_t line_bytes) {
    if (is_control_event(type)) return true;
    if (accepted_events_ + 1 > caps_.events || accepted_bytes_ + line_bytes > caps_.total_bytes) {
        ++dropped_events_;
        dropped_bytes_ += line_bytes;
        return false;
    }
    ++accepted_events_;
    accepted_bytes_ += line_bytes;
    return true;
}

void CallIntake::dropped_long_line(std::size_t bytes) {
    ++long_lines_;
    dropped_bytes_ += bytes;
}

void CallIntake::dropped_malformed_line(std::size_t bytes) {
    ++malformed_lines_;
    dropped_bytes_ += bytes;
}

json::object CallIntake::marker_event(std::int64_t request_id) const {
    std::string text = "[e2beval: the host dropped part of this call's output: ";
    std::string parts;
    const auto add = [&](const std::string& part) { parts += (parts.empty() ? "" : "; ") + part; };
    if (dropped_events_)
        add(std::to_string(dropped_events_) + " output events past the cap of " + mib(caps_.total_bytes) + " and " +
            std::to_string(caps_.events) + " events per call");
    if (long_lines_) add(std::to_string(long_lines_) + " events longer than " + mib(caps_.line_bytes) + " each");
    if (malformed_lines_) add(std::to_string(malformed_lines_) + " lines from the agent that were not JSON objects");
    text += parts + " (" + mib(dropped_bytes_) + " in all); see docs/sessions.md]\n";
    char stamp[40];
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return {{"id", request_id}, {"type", "stderr"}, {"text", std::move(text)}, {"timestamp", stamp}};
}

}  // namespace e2beval::local

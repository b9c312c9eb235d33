// JSON conversions of the value types (one place, used by the CLI and the Python module).
#include "e2beval/core/json.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cmath>

#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

double seconds(std::chrono::nanoseconds duration) { return std::chrono::duration<double>(duration).count(); }

void append_number(std::string& out, double number) {
    if (!std::isfinite(number)) {
        out += "null";
        return;
    }
    char buffer[32];  // the shortest round-trip form of a double needs at most 24 characters
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, number).ptr;
    const std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
    out += text;
    if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void append_json(std::string& out, const json::value& value) {
    switch (value.kind()) {
        case json::kind::null: out += "null"; return;
        case json::kind::bool_: out += value.get_bool() ? "true" : "false"; return;
        case json::kind::int64: out += std::to_string(value.get_int64()); return;
        case json::kind::uint64: out += std::to_string(value.get_uint64()); return;
        case json::kind::double_: append_number(out, value.get_double()); return;
        case json::kind::string: out += json::serialize(value.get_string()); return;
        case json::kind::array: {
            out += '[';
            bool first = true;
            for (const auto& item : value.get_array()) {
                if (!first) out += ',';
                first = false;
                append_json(out, item);
            }
            out += ']';
            return;
        }
        case json::kind::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, item] : value.get_object()) {
                if (!first) out += ',';
                first = false;
                out += json::serialize(json::string_view(key));
                out += ':';
                append_json(out, item);
            }
            out += '}';
            return;
        }
    }
}

int hex_digit(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The code unit of a \uXXXX escape at `at` (the backslash), or -1 when there is none there.
long escaped_unit(std::string_view text, std::size_t at) noexcept {
    if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u') return -1;
    long unit = 0;
    for (std::size_t i = at + 2; i < at + 6; ++i) {
        const int digit = hex_digit(text[i]);
        if (digit < 0) return -1;
        unit = unit * 16 + digit;
    }
    return unit;
}

// `text` with every lone surrogate escape inside a string rewritten as `how` says; a pair stays as it is.
std::string rewrite_lone_surrogates(std::string_view text, LoneSurrogates how, std::size_t& found) {
    std::string out;
    out.reserve(text.size());
    bool in_string = false;
    for (std::size_t at = 0; at < text.size();) {
        const char c = text[at];
        if (!in_string) {
            in_string = c == '"';
            out += c;
            ++at;
            continue;
        }
        if (c == '"') {
            in_string = false;
        } else if (c == '\\') {
            const long unit = escaped_unit(text, at);
            if (unit < 0xD800 || unit > 0xDFFF) {  // another escape (or a malformed one: the parser names it)
                out.append(text.substr(at, std::min<std::size_t>(2, text.size() - at)));
                at += 2;
                continue;
            }
            const long next = unit <= 0xDBFF ? escaped_unit(text, at + 6) : -1;
            if (next >= 0xDC00 && next <= 0xDFFF) {  // a pair: one character
                out.append(text.substr(at, 12));
                at += 12;
                continue;
            }
            ++found;
            if (how == LoneSurrogates::as_escape_text) {
                out += "\\\\";  // an escaped backslash, then "udcff" as written
                out.append(text.substr(at + 1, 5));
            } else {
                append_utf8(out, static_cast<std::uint32_t>(unit));  // ED B3 BF: WTF-8, invalid UTF-8 on purpose
            }
            at += 6;
            continue;
        }
        out += c;
        ++at;
    }
    return out;
}

void find_invalid(const json::value& value, const std::string& path, std::optional<InvalidText>& found) {
    if (found) return;
    const auto check = [&](std::string_view text, const std::string& where) {
        if (const auto offset = find_invalid_utf8(text)) found = InvalidText{where, shown_invalid_utf8(text, *offset)};
    };
    switch (value.kind()) {
        case json::kind::string: check(value.get_string(), path); return;
        case json::kind::array:
            for (std::size_t i = 0; i < value.get_array().size() && !found; ++i)
                find_invalid(value.get_array()[i], path + "[" + std::to_string(i) + "]", found);
            return;
        case json::kind::object:
            for (const auto& [key, item] : value.get_object()) {
                const std::string where = path.empty() ? std::string(key) : path + "." + std::string(key);
                check(key, where);
                find_invalid(item, where, found);
                if (found) return;
            }
            return;
        default: return;
    }
}

std::string joined_keys(const std::vector<std::string_view>& keys) {
    std::string text;
    for (const auto key : keys) text += (text.empty() ? "" : ", ") + std::string(key);
    return text;
}

}  // namespace

json::value parse_json(std::string_view text, LoneSurrogates how, boost::system::error_code& ec, std::size_t* found) {
    std::size_t count = 0;
    // Most text holds no surrogate escape at all: then it is parsed as it is, without a copy.
    const bool may_hold = text.find("\\u") != std::string_view::npos;
    const std::string rewritten = may_hold ? rewrite_lone_surrogates(text, how, count) : std::string();
    if (found) *found = count;
    json::parse_options options;
    // The surrogates' bytes written above are invalid UTF-8 on purpose (callers check the raw text themselves).
    options.allow_invalid_utf8 = how == LoneSurrogates::as_wtf8 && count > 0;
    return json::parse(count > 0 ? std::string_view(rewritten) : text, ec, {}, options);
}

std::optional<InvalidText> find_invalid_text(const json::value& value, const std::string& path) {
    std::optional<InvalidText> found;
    find_invalid(value, path, found);
    return found;
}

const std::vector<std::string_view>& limit_keys() {
    static const std::vector<std::string_view> keys = {"wall_time_s",     "cpu_time_s",      "memory_mb",    "max_processes",
                                                       "output_bytes",    "file_size_bytes", "workspace_mb", "open_files",
                                                       "cpus"};
    return keys;
}

const std::vector<std::string_view>& isolation_keys() {
    static const std::vector<std::string_view> keys = {"network", "seccomp", "minimum_level"};
    return keys;
}

std::string to_json_text(const json::value& value) {
    std::string out;
    append_json(out, value);
    return out;
}

json::object to_json(const Limits& limits) {
    return {{"wall_time_s", std::chrono::duration<double>(limits.wall_time).count()},
            {"cpu_time_s", std::chrono::duration<double>(limits.cpu_time).count()},
            {"memory_mb", limits.memory_bytes / kMiB},
            {"max_processes", limits.max_processes},
            {"output_bytes", limits.output_bytes},
            {"file_size_bytes", limits.file_size_bytes},
            {"workspace_mb", limits.workspace_bytes / kMiB},
            {"open_files", limits.open_files},
            {"cpus", limits.cpus}};
}

json::object to_json(const ExecResult& result) {
    json::object object{{"outcome", to_string(result.outcome)},
                        {"exit_code", result.exit_code},
                        {"signal", result.signal},
                        {"stdout", to_valid_utf8(result.stdout_data)},
                        {"stderr", to_valid_utf8(result.stderr_data)},
                        {"stdout_truncated", result.stdout_truncated},
                        {"stderr_truncated", result.stderr_truncated},
                        {"wall_time_s", seconds(result.wall_time)},
                        {"cpu_time_s", seconds(result.cpu_time)},
                        {"detail", result.detail}};
    object["peak_memory_bytes"] = result.peak_memory_bytes ? json::value(*result.peak_memory_bytes) : json::value(nullptr);
    json::array denied;
    for (const auto& name : result.denied_syscalls) denied.push_back(json::value(name));
    object["denied_syscalls"] = std::move(denied);
    object["isolation_level"] = result.isolation_level;
    object["cgroup_version"] = result.cgroup_version;
    object["warm"] = result.warm;
    object["backend"] = result.backend;
    if (result.compile) {
        const auto& compile = *result.compile;
        json::object stage{{"outcome", to_string(compile.outcome)},
                           {"exit_code", compile.exit_code},
                           {"signal", compile.signal},
                           {"stdout", to_valid_utf8(compile.stdout_data)},
                           {"stderr", to_valid_utf8(compile.stderr_data)},
                           {"stdout_truncated", compile.stdout_truncated},
                           {"stderr_truncated", compile.stderr_truncated},
                           {"wall_time_s", seconds(compile.wall_time)},
                           {"cpu_time_s", seconds(compile.cpu_time)},
                           {"cached", compile.cached},
                           {"toolchain", compile.toolchain},
                           {"detail", compile.detail}};
        stage["peak_memory_bytes"] = compile.peak_memory_bytes ? json::value(*compile.peak_memory_bytes) : json::value(nullptr);
        object["compile"] = std::move(stage);
    } else {
        object["compile"] = nullptr;
    }
    return object;
}

json::object to_json(const IsolationProfile& isolation) {
    return {{"network", isolation.network},
            {"seccomp", to_string(isolation.seccomp)},
            {"minimum_level", to_string(isolation.minimum_level)}};
}

IsolationProfile isolation_from_json(const json::object& object, IsolationProfile isolation) {
    static const std::string kKeys = joined_keys(isolation_keys());
    for (const auto& [key, value] : object) {
        if (key == "network") {
            if (!value.is_bool()) throw input_error("isolation 'network' must be true or false");
            isolation.network = value.get_bool();
        } else if (key == "seccomp") {
            const auto mode = value.is_string() ? seccomp_mode_from_string(value.get_string()) : std::nullopt;
            if (!mode) throw input_error("isolation 'seccomp' must be \"deny\" or \"kill\"");
            isolation.seccomp = *mode;
        } else if (key == "minimum_level") {
            const auto level = value.is_string() ? isolation_level_from_string(value.get_string()) : std::nullopt;
            if (!level) throw input_error("isolation 'minimum_level' must be \"standard\" or \"full\"");
            isolation.minimum_level = *level;
        } else {
            throw input_error("unknown isolation setting '" + std::string(key) + "'; valid settings are: " + kKeys);
        }
    }
    return isolation;
}

Limits limits_from_json(const json::object& object, Limits limits) {
    static const std::string kKeys = joined_keys(limit_keys());
    for (const auto& [key, value] : object) {
        if (!value.is_number())
            throw input_error("limit '" + std::string(key) + "' must be a number, got " + json::serialize(value));
        const double number = value.to_number<double>();
        // cpus 0 is meaningful (no CPU cap, as by default); every other limit must leave the program some room.
        if (number < 0 || (number == 0 && key != "cpus"))
            throw input_error("limit '" + std::string(key) + "' must be positive");
        const auto milliseconds = std::chrono::milliseconds(static_cast<long long>(number * 1000.0));
        if (key == "wall_time_s") limits.wall_time = milliseconds;
        else if (key == "cpu_time_s") limits.cpu_time = milliseconds;
        else if (key == "memory_mb") limits.memory_bytes = static_cast<std::uint64_t>(number * kMiB);
        else if (key == "max_processes") limits.max_processes = static_cast<std::uint32_t>(number);
        else if (key == "output_bytes") limits.output_bytes = static_cast<std::uint64_t>(number);
        else if (key == "file_size_bytes") limits.file_size_bytes = static_cast<std::uint64_t>(number);
        else if (key == "workspace_mb") limits.workspace_bytes = static_cast<std::uint64_t>(number * kMiB);
        else if (key == "open_files") limits.open_files = static_cast<std::uint32_t>(number);
        else if (key == "cpus") limits.cpus = number;
        else throw input_error("unknown limit '" + std::string(key) + "'; valid limits are: " + kKeys);
    }
    return limits;
}

}  // namespace e2beval

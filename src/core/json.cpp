// JSON conversions of the value types (one place, used by the CLI and the Python module).
#include "e2beval/core/json.hpp"

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

std::string joined_keys(const std::vector<std::string_view>& keys) {
    std::string text;
    for (const auto key : keys) text += (text.empty() ? "" : ", ") + std::string(key);
    return text;
}

}  // namespace

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

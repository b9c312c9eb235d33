// Reading SandboxFusion's request bodies, with FastAPI's 422 for what does not fit the model.
#include "server/sandbox_fusion/requests.hpp"

#include "server/sandbox_fusion/validation.hpp"

#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include <boost/json.hpp>

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;

namespace {

std::optional<std::string> required_string(const json::object& body, std::string_view field, ValidationErrors& errors) {
    const auto* value = body.if_contains(field);
    if (!value) {
        errors.add("missing", body_loc(field), "Field required", body);
        return std::nullopt;
    }
    if (!value->is_string()) {
        errors.add("string_type", body_loc(field), "Input should be a valid string", *value);
        return std::nullopt;
    }
    return std::string(value->as_string());
}

// pydantic's lax number: a JSON number, or a string that is one whole number (`integral_text`: an integer's
// digits, as for an int field) or a float's text. Nothing for anything else.
std::optional<double> lax_number(const json::value& value, bool integral_text) {
    if (value.is_int64()) return static_cast<double>(value.as_int64());
    if (value.is_uint64()) return static_cast<double>(value.as_uint64());
    if (value.is_double()) return value.as_double();
    if (!value.is_string()) return std::nullopt;
    try {
        std::size_t used = 0;
        const std::string text(value.as_string());
        const double parsed = integral_text ? static_cast<double>(std::stoll(text, &used)) : std::stod(text, &used);
        if (used == text.size()) return parsed;
    } catch (const std::logic_error&) {
    }
    return std::nullopt;
}

// A number of seconds (pydantic's lax float: a number or a numeric string), in (0, limit]; null: the default.
double seconds_field(const json::object& body, std::string_view field, double fallback, double lowest_exclusive,
                     double limit, ValidationErrors& errors) {
    const auto* value = body.if_contains(field);
    if (!value || value->is_null()) return fallback;
    const auto number = lax_number(*value, false);
    if (!number || !std::isfinite(*number)) {
        errors.add("float_parsing", body_loc(field), "Input should be a valid number", *value);
        return fallback;
    }
    if (*number <= lowest_exclusive) {
        errors.add("greater_than", body_loc(field),
                   "Input should be greater than " + seconds_text(lowest_exclusive) +
                       " (e2beval serve needs a positive time limit)",
                   *value);
        return fallback;
    }
    if (*number > limit) {
        errors.add("less_than_equal", body_loc(field),
                   "Input should be less than or equal to " + seconds_text(limit) +
                       " (the most this server allows; e2beval serve --sandbox-fusion-max-timeout raises it)",
                   *value);
        return fallback;
    }
    return *number;
}

// memory_limit_MB: an int (an integral float or a numeric string too, as pydantic's lax mode); -1, 0 or null
// is the server's default; above the server's cap is refused.
std::uint64_t memory_field(const json::object& body, const ServerOptions::SandboxFusion& limits, ValidationErrors& errors) {
    const auto* value = body.if_contains("memory_limit_MB");
    if (!value || value->is_null()) return limits.default_memory_bytes;
    const auto number = lax_number(*value, true);
    if (!number || !std::isfinite(*number) || std::floor(*number) != *number) {
        errors.add("int_parsing", body_loc("memory_limit_MB"), "Input should be a valid integer", *value);
        return limits.default_memory_bytes;
    }
    if (*number <= 0) return limits.default_memory_bytes;
    const double max_mb = static_cast<double>(limits.max_memory_bytes >> 20);
    if (*number > max_mb) {
        errors.add("less_than_equal", body_loc("memory_limit_MB"),
                   "Input should be less than or equal to " + std::to_string(limits.max_memory_bytes >> 20) +
                       " (the most this server allows; e2beval serve --sandbox-fusion-max-memory-mb raises it)",
                   *value);
        return limits.default_memory_bytes;
    }
    return static_cast<std::uint64_t>(*number) << 20;
}

// Standard base64 (RFC 4648 §4, with padding), as Python's base64.b64encode writes it; whitespace is skipped
// (line-wrapped base64). Anything else is refused: SandboxFusion's b64decode drops stray characters silently,
// which turns a mistake into a corrupt file.
std::optional<std::string> decode_base64(std::string_view text) {
    static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string decoded;
    decoded.reserve(text.size() / 4 * 3);
    unsigned buffer = 0;
    int bits = 0;
    std::size_t symbols = 0;
    std::size_t padding = 0;
    for (const char c : text) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '=') {
            ++padding;
            ++symbols;
            continue;
        }
        if (padding > 0) return std::nullopt;  // data after padding
        const auto index = kAlphabet.find(c);
        if (index == std::string_view::npos) return std::nullopt;
        ++symbols;
        buffer = (buffer << 6) | static_cast<unsigned>(index);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            decoded.push_back(static_cast<char>((buffer >> bits) & 0xFF));
        }
    }
    if (symbols % 4 != 0 || padding > 2) return std::nullopt;
    return decoded;
}

std::map<std::string, std::string> files_field(const json::object& body, bool values_nullable, ValidationErrors& errors) {
    std::map<std::string, std::string> files;
    const auto* value = body.if_contains("files");
    if (!value || value->is_null()) return files;
    if (!value->is_object()) {
        errors.add("dict_type", body_loc("files"), "Input should be a valid dictionary", *value);
        return files;
    }
    for (const auto& [name, content] : value->as_object()) {
        const std::string requested(name);
        if (content.is_null() && values_nullable) continue;  // SandboxFusion skips a null content
        if (!content.is_string()) {
            errors.add("string_type", body_loc("files", requested), "Input should be a valid string (the file's base64)", content);
            continue;
        }
        // SandboxFusion's restore_files skips these names (its callers use them to leave a file out).
        if (requested.find("IGNORE_THIS_FILE") != std::string::npos) continue;
        const auto path = workspace_path(requested);
        if (path.empty()) {
            errors.add("value_error", body_loc("files", requested),
                       "Value error, the path '" + requested +
                           "' is not inside the workspace: give a relative path without '..' (e2beval serve keeps "
                           "every file in the run's workspace)",
                       json::string(requested));
            continue;
        }
        auto decoded = decode_base64(content.as_string());
        if (!decoded) {
            errors.add("value_error", body_loc("files", requested),
                       "Value error, the content of '" + requested + "' is not base64 (standard alphabet, with padding)",
                       json::string(requested));
            continue;
        }
        if (files.contains(path)) {
            errors.add("value_error", body_loc("files", requested),
                       "Value error, '" + requested + "' names the same workspace file as another entry", json::string(requested));
            continue;
        }
        files.emplace(path, std::move(*decoded));
    }
    return files;
}

// The requested names as given (the response's keys); each is checked as a workspace path.
std::vector<std::string> fetch_files_field(const json::object& body, ValidationErrors& errors) {
    std::vector<std::string> names;
    const auto* value = body.if_contains("fetch_files");
    if (!value || value->is_null()) return names;
    if (!value->is_array()) {
        errors.add("list_type", body_loc("fetch_files"), "Input should be a valid list", *value);
        return names;
    }
    constexpr std::size_t kMostFetched = 512;  // what the sandbox collects at most (src/local/spawn_plan.hpp)
    if (value->as_array().size() > kMostFetched) {
        errors.add("too_long", body_loc("fetch_files"), "List should have at most 512 items", nullptr);
        return names;
    }
    std::size_t index = 0;
    for (const auto& item : value->as_array()) {
        if (!item.is_string()) {
            errors.add("string_type", body_loc("fetch_files", index), "Input should be a valid string", item);
        } else if (workspace_path(item.as_string()).empty()) {
            errors.add("value_error", body_loc("fetch_files", index),
                       "Value error, the path '" + std::string(item.as_string()) +
                           "' is not inside the workspace: give a relative path without '..'",
                       item);
        } else {
            names.emplace_back(item.as_string());
        }
        ++index;
    }
    return names;
}

}  // namespace

std::string seconds_text(double seconds) {
    std::ostringstream text;
    text << seconds;
    return text.str();
}

std::string workspace_path(std::string_view path) {
    if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos) return {};
    std::string normal;
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        const auto part = path.substr(start, end - start);
        if (part == "..") return {};
        if (!part.empty() && part != ".") {
            if (!normal.empty()) normal += '/';
            normal += part;
        }
        start = end + 1;
    }
    return normal;
}

std::variant<RunCodeRequest, Response> parse_run_code_request(std::string_view text, const ServerOptions::SandboxFusion& limits) {
    auto parsed = body_object(text);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto& body = std::get<json::object>(parsed);
    ValidationErrors errors;
    refuse_unknown_fields(body, {"code", "language", "compile_timeout", "run_timeout", "memory_limit_MB", "stdin", "files",
                                 "fetch_files"},
                          errors);
    RunCodeRequest request;
    if (auto code = required_string(body, "code", errors)) request.code = std::move(*code);
    if (auto language = required_string(body, "language", errors)) request.language = std::move(*language);
    request.compile_timeout = seconds_field(body, "compile_timeout", 10, 0, limits.max_timeout_seconds, errors);
    request.run_timeout = seconds_field(body, "run_timeout", 10, 0, limits.max_timeout_seconds, errors);
    request.memory_limit_mb = static_cast<long>(memory_field(body, limits, errors) >> 20);
    if (const auto* stdin_value = body.if_contains("stdin"); stdin_value && !stdin_value->is_null()) {
        if (stdin_value->is_string()) request.stdin_data = std::string(stdin_value->as_string());
        else errors.add("string_type", body_loc("stdin"), "Input should be a valid string", *stdin_value);
    }
    request.files = files_field(body, true, errors);
    // The run's workspace (docs/sandbox.md) holds the files and what the program writes: files that cannot fit
    // are the request's fault, said here rather than as a SandboxError the client would retry.
    std::uint64_t total = 0;
    for (const auto& [path, bytes] : request.files) total += bytes.size();
    if (const auto room = Limits{}.workspace_bytes; total > room)
        errors.add("value_error", body_loc("files"),
                   "Value error, the files hold " + std::to_string(total) + " bytes, more than the " + std::to_string(room) +
                       " bytes a run's workspace holds",
                   nullptr);
    request.fetch_files = fetch_files_field(body, errors);
    if (!errors.empty()) return errors.response();
    return request;
}

std::variant<RunJupyterRequest, Response> parse_run_jupyter_request(std::string_view text,
                                                                    const ServerOptions::SandboxFusion& limits) {
    auto parsed = body_object(text);
    if (auto* refusal = std::get_if<Response>(&parsed)) return std::move(*refusal);
    const auto& body = std::get<json::object>(parsed);
    ValidationErrors errors;
    refuse_unknown_fields(body, {"cells", "cell_timeout", "total_timeout", "memory_limit_MB", "kernel", "files", "fetch_files"},
                          errors);
    RunJupyterRequest request;
    const auto* cells = body.if_contains("cells");
    if (!cells) {
        errors.add("missing", body_loc("cells"), "Field required", body);
    } else if (!cells->is_array()) {
        errors.add("list_type", body_loc("cells"), "Input should be a valid list", *cells);
    } else {
        std::size_t index = 0;
        for (const auto& cell : cells->as_array()) {
            if (cell.is_string()) request.cells.emplace_back(cell.as_string());
            else errors.add("string_type", body_loc("cells", index), "Input should be a valid string", cell);
            ++index;
        }
    }
    // cell_timeout 0 (SandboxFusion's default) or less means no per-cell limit, as upstream (which never enforces it).
    request.cell_timeout = std::max(0.0, seconds_field(body, "cell_timeout", 0, -1e300, limits.max_timeout_seconds, errors));
    request.total_timeout = seconds_field(body, "total_timeout", 45, 0, limits.max_timeout_seconds, errors);
    memory_field(body, limits, errors);  // checked, then unused: SandboxFusion ignores it too (a session's memory applies)
    if (const auto* kernel = body.if_contains("kernel"); kernel && !kernel->is_null() &&
                                                          !(kernel->is_string() && kernel->as_string() == "python3"))
        errors.add("literal_error", body_loc("kernel"), "Input should be 'python3'", *kernel);
    request.files = files_field(body, false, errors);
    request.fetch_files = fetch_files_field(body, errors);
    if (!errors.empty()) return errors.response();
    return request;
}

}  // namespace e2beval::server::sandbox_fusion

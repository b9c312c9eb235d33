// MetricsSink: the tutorial's metrics files, written atomically (temp file + rename) so a report that
// runs concurrently never reads half a file.
#include "e2beval/eval/metrics.hpp"

#include <boost/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>

#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/text.hpp"
#include "e2beval/analysis/json.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

std::string uuid4_hex() {
    static thread_local std::mt19937_64 generator{std::random_device{}() ^
                                                  static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())};
    std::uint64_t high = generator(), low = generator();
    high = (high & ~0xF000ull) | 0x4000ull;                              // version 4
    low = (low & ~(0xC000000000000000ull)) | 0x8000000000000000ull;  // RFC 4122 variant
    char text[33];
    std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                  static_cast<unsigned long long>(low));
    return text;
}

double now_epoch_seconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string make_process_run_id() {
    if (const char* from_env = std::getenv("E2BEVAL_RUN_ID"); from_env && *from_env) return from_env;
    // Readable (when it ran) and unique enough for one results directory (the pid tells apart runs that
    // started in the same second).
    const std::time_t now = std::time(nullptr);
    std::tm parts{};
    gmtime_r(&now, &parts);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &parts);
    return "run-" + std::string(stamp) + "-" + std::to_string(static_cast<long long>(::getpid()));
}

}  // namespace

const std::string& process_run_id() {
    static const std::string id = make_process_run_id();
    return id;
}

std::filesystem::path default_results_dir() {
    const char* from_env = std::getenv("PROMPTFOO_RESULTS_DIR");
    return from_env && *from_env ? std::filesystem::path(from_env) : std::filesystem::path(".promptfoo_results");
}

MetricsSink::MetricsSink(std::filesystem::path directory, std::string run_id)
    : directory_(std::move(directory)), run_id_(std::move(run_id)) {}

json::object to_json(const MetricsRecord& record) {
    json::object object;
    object["task_id"] = record.task_id;
    object["provider"] = record.provider;
    object["model"] = record.model;
    object["success"] = record.success;
    object["runtime_s"] = record.runtime_s;
    object["memory_mb"] = record.memory_mb ? json::value(*record.memory_mb) : json::value(nullptr);
    object["extra"] = record.extra;
    object["timestamp"] = record.timestamp == 0.0 ? now_epoch_seconds() : record.timestamp;
    object["run_id"] = record.run_id.empty() ? json::value(nullptr) : json::value(record.run_id);
    return object;
}

MetricsRecord metrics_from_json(const json::object& object) {
    const auto text = [&](std::string_view key) -> std::string {
        const auto* value = object.if_contains(key);
        if (!value || value->is_null()) return {};
        return value->is_string() ? std::string(value->get_string()) : to_json_text(*value);
    };
    const auto number = [&](std::string_view key) -> std::optional<double> {
        const auto* value = object.if_contains(key);
        if (!value || !value->is_number()) return std::nullopt;
        return value->to_number<double>();
    };
    MetricsRecord record;
    if (!object.contains("task_id") || !object.contains("success"))
        throw input_error("not a metrics record: task_id and success are required");
    record.task_id = text("task_id");
    record.provider = text("provider");
    record.model = text("model");
    const auto& success = object.at("success");
    record.success = success.is_bool() ? success.get_bool() : (success.is_number() && success.to_number<double>() != 0);
    record.runtime_s = number("runtime_s").value_or(0.0);
    record.memory_mb = number("memory_mb");
    if (const auto* extra = object.if_contains("extra")) record.extra = *extra;
    record.timestamp = number("timestamp").value_or(0.0);
    record.run_id = text("run_id");
    return record;
}

std::filesystem::path MetricsSink::write(const MetricsRecord& record) const {
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    if (ec) throw io_error("cannot create the metrics directory " + directory_.string() + ": " + ec.message());
    const auto name = "metrics_" + uuid4_hex() + ".json";
    const auto final_path = directory_ / name;
    const auto temporary = directory_ / ("." + name + ".tmp");
    {
        std::ofstream out(temporary, std::ios::binary);
        auto object = to_json(record);
        if (record.run_id.empty() && !run_id_.empty()) object["run_id"] = run_id_;
        out << to_json_text(object) << '\n';
        if (!out) throw io_error("cannot write " + temporary.string());
    }
    std::filesystem::rename(temporary, final_path, ec);
    if (ec) throw io_error("cannot rename " + temporary.string() + " to " + final_path.string() + ": " + ec.message());
    return final_path;
}

MetricsRecord metrics_record(const Verdict& verdict) {
    constexpr std::size_t kMaxText = 16 * 1024;
    const auto cut = [](const std::string& text) {
        return to_valid_utf8(text.size() <= kMaxText ? text : text.substr(0, kMaxText) + "\n[... cut at 16 KiB ...]");
    };
    MetricsRecord record;
    record.success = verdict.pass;
    if (verdict.exec) {
        record.runtime_s = std::chrono::duration<double>(verdict.exec->wall_time).count();
        if (verdict.exec->peak_memory_bytes) record.memory_mb = static_cast<double>(*verdict.exec->peak_memory_bytes) / kMiB;
    }
    json::object extra{{"reason", to_valid_utf8(verdict.reason)},
                       {"score", verdict.score},
                       {"status", to_string(verdict.status)},
                       {"outcome", verdict.exec ? to_string(verdict.exec->outcome) : "not_run"}};
    if (verdict.extraction) {
        extra["code"] = cut(verdict.extraction->code);
        extra["language"] = to_string(verdict.extraction->language);
    }
    if (!verdict.findings.empty()) extra["findings"] = to_json(verdict.findings);
    if (verdict.exec) {
        extra["stdout"] = cut(verdict.exec->stdout_data);
        extra["stderr"] = cut(verdict.exec->stderr_data);
        if (!verdict.exec->detail.empty()) extra["detail"] = to_valid_utf8(verdict.exec->detail);
    }
    json::array cases;
    for (const auto& item : verdict.cases)
        cases.push_back(json::object{{"pass", item.passed}, {"reason", cut(item.reason)}, {"input", cut(item.input)},
                                     {"expected", cut(item.expected)}, {"actual", cut(item.actual)}});
    if (!cases.empty()) extra["cases"] = std::move(cases);
    record.extra = std::move(extra);
    return record;
}

MetricsRecord error_record(const std::string& outcome, const std::string& reason) {
    MetricsRecord record;
    record.extra = json::object{{"reason", to_valid_utf8(reason)}, {"score", 0.0}, {"outcome", outcome}, {"error", to_valid_utf8(reason)}};
    return record;
}

}  // namespace e2beval

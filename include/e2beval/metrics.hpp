// MetricsSink: the tutorial's metrics files, one JSON object per evaluation, in $PROMPTFOO_RESULTS_DIR.
// Schema: {task_id, provider, model, success, runtime_s, memory_mb, extra, timestamp}; files metrics_<hex>.json.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <boost/json/value.hpp>

namespace e2beval {

struct MetricsRecord {
    std::string task_id;
    std::string provider;
    std::string model;
    bool success = false;
    double runtime_s = 0.0;
    std::optional<double> memory_mb;
    boost::json::value extra;  // null or an object (reason, outcome, ...)
    double timestamp = 0.0;    // epoch seconds; 0 means "now" when written
};

// $PROMPTFOO_RESULTS_DIR, else ".promptfoo_results".
std::filesystem::path default_results_dir();

class MetricsSink {
public:
    explicit MetricsSink(std::filesystem::path directory = default_results_dir());

    // Writes one metrics_<uuid4 hex>.json file atomically and returns its path. Throws io_error.
    std::filesystem::path write(const MetricsRecord& record) const;

    const std::filesystem::path& directory() const noexcept { return directory_; }

private:
    std::filesystem::path directory_;
};

boost::json::object to_json(const MetricsRecord& record);
MetricsRecord metrics_from_json(const boost::json::object& object);

}  // namespace e2beval

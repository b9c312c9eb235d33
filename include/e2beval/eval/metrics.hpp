// MetricsSink: the tutorial's metrics files, one JSON object per evaluation, in $PROMPTFOO_RESULTS_DIR.
// Schema: {task_id, provider, model, success, runtime_s, memory_mb, extra, timestamp} plus e2beval's run_id (which
// run wrote the record, so re-runs are not mistaken for samples); files metrics_<hex>.json.
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
    // The run that wrote the record: promptfoo's eval, one `e2beval eval`, one Python process. Empty in
    // records of older versions and the tutorial's metrics.py (reports read those as one legacy run).
    std::string run_id;
};

// The run id of this process: $E2BEVAL_RUN_ID when set, else "run-<UTC start time>-<pid>", made once.
const std::string& process_run_id();

// $PROMPTFOO_RESULTS_DIR, else ".promptfoo_results".
std::filesystem::path default_results_dir();

class MetricsSink {
public:
    explicit MetricsSink(std::filesystem::path directory = default_results_dir(), std::string run_id = process_run_id());

    // Writes one metrics_<uuid4 hex>.json file atomically and returns its path; a record without a run id
    // gets the sink's. Throws io_error.
    std::filesystem::path write(const MetricsRecord& record) const;

    const std::filesystem::path& directory() const noexcept { return directory_; }
    const std::string& run_id() const noexcept { return run_id_; }

private:
    std::filesystem::path directory_;
    std::string run_id_;
};

boost::json::object to_json(const MetricsRecord& record);
MetricsRecord metrics_from_json(const boost::json::object& object);

}  // namespace e2beval

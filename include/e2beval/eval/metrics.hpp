// MetricsSink: the tutorial's metrics files, one JSON object per evaluation, in $PROMPTFOO_RESULTS_DIR.
// Schema: {task_id, provider, model, success, runtime_s, memory_mb, extra, timestamp} plus e2beval's run_id (which
// run wrote the record, so re-runs are not mistaken for samples); files metrics_<hex>.json.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <boost/json/value.hpp>

#include "e2beval/eval/runner.hpp"

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

// The record of one evaluated test, the same for every face (`e2beval eval`, the promptfoo assertion):
//   success    the verdict passed;
//   runtime_s  the program's wall time in the sandbox, in seconds (0 when it did not run: blocked, no code);
//   memory_mb  its peak memory, when measured;
//   extra      {reason, score, status, outcome} (the verdict's reason, its score, blocked/contained/ran/not_run/
//              error, the execution's outcome or not_run), and what a report shows when the row is opened: code,
//              language, findings, stdout/stderr and detail (texts cut at 16 KiB), each case's pass, reason,
//              input, expected and actual.
// task_id, provider, model and run_id are the face's to fill in.
MetricsRecord metrics_record(const Verdict& verdict);

// A test that could not be evaluated (invalid vars or configuration, a sandbox that failed): an error row,
// extra {reason, score 0, outcome, error}, so that every test asked for appears in reports.
MetricsRecord error_record(const std::string& outcome, const std::string& reason);

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

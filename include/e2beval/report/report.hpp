// Report: reads evaluation results (the tutorial's metrics files, or promptfoo's `-o out.json`) into one
// normalised form and renders it as the tutorial's Markdown table, JSON, JUnit XML or a self-contained HTML page.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "e2beval/eval/metrics.hpp"

namespace e2beval {

// ---- the tutorial's metrics files -------------------------------------------------------------------

// Files that are not valid metrics are skipped and counted, never fatal: a report shows what it can.
struct MetricsCollection {
    std::vector<MetricsRecord> records;           // sorted by timestamp
    std::vector<std::string> skipped;             // "file: why" for each unreadable file
};

// Throws io_error when `directory` is not a directory.
MetricsCollection load_metrics(const std::filesystem::path& directory);

// ---- one normalised form for every input ---------------------------------------------------------------

// One evaluated test (one sample of a task). Everything but task/provider/model/success may be unknown.
struct ReportCase {
    bool pass = false;
    std::string reason;
    std::string input, expected, actual;  // when the source recorded them (expected versus actual in the HTML)
};

struct ReportRow {
    std::string task;
    std::string provider;
    std::string model;
    bool success = false;
    std::optional<double> score;
    double runtime_s = 0.0;
    std::optional<double> memory_mb;   // peak memory of the sandboxed program
    std::string outcome;               // ok, exit_nonzero, timeout, ..., blocked, no_code, error, unknown
    std::string reason;
    std::string error;                 // set when the test could not be evaluated (promptfoo ERROR, sandbox error)
    std::string code;                  // extracted code, when the source recorded it
    std::string model_output;          // the model's raw answer (promptfoo's response.output)
    std::vector<std::string> findings; // "rule (severity) at LINE:COL: message"
    std::map<std::size_t, std::string> flagged_lines;  // line of `code` (from 1) -> the findings on it
    std::string stdout_text;
    std::string stderr_text;
    std::vector<ReportCase> cases;     // per test case, when there were several
    std::vector<std::string> png_results;  // a cell's plots, base64 (expect_results; src/report/report_images.hpp)
    std::string png_results_note;          // what of them was left out, and why
    double timestamp = 0.0;            // epoch seconds; 0 when unknown
    std::string run_id;                // the run that produced it (see RunSelection); kLegacyRunId when unrecorded
};

// Records written before run ids existed (older e2beval, the tutorial's metrics.py) form one run of this name.
inline constexpr std::string_view kLegacyRunId = "legacy";

// One run in a source: a `promptfoo eval`, an `e2beval eval`, a Python process writing metrics.
struct RunInfo {
    std::string id;
    std::size_t rows = 0, passed = 0;
    double last_timestamp = 0.0;  // its newest record; the run with the newest one is "the latest run"
};

// Which runs a report shows. A metrics directory collects every run written into it; re-runs of the same
// tests are not samples of one run, so a report shows one run unless asked for all.
struct RunSelection {
    enum class Mode { latest, one, all };
    Mode mode = Mode::latest;
    std::string run_id;  // with Mode::one
    static RunSelection latest() { return {}; }
    static RunSelection all() { return {Mode::all, {}}; }
    static RunSelection one(std::string id) { return {Mode::one, std::move(id)}; }
};

enum class ReportSourceKind { metrics_directory, metrics_file, promptfoo_output };
std::string_view to_string(ReportSourceKind kind) noexcept;

struct ReportData {
    ReportSourceKind kind = ReportSourceKind::metrics_directory;
    std::string source;                // the path read
    std::vector<ReportRow> rows;       // in the source's order (metrics: by timestamp)
    std::vector<std::string> skipped;  // what could not be read, and why
    std::vector<RunInfo> runs;         // every run in the source, newest first (set by select_runs)
    std::vector<std::string> shown_runs;  // the runs whose rows are in `rows`
    RunSelection selection = RunSelection::all();
};

// Keeps the rows of the runs `selection` asks for and records which runs exist. Throws input_error when
// Mode::one names a run the source does not hold (the message lists the runs there are).
ReportData select_runs(ReportData data, const RunSelection& selection);

// A metrics directory, or a file detected by content: promptfoo's `-o` JSON (results.results[]) or JSONL,
// a metrics record, a list of them, or metrics JSONL. Throws io_error when the path does not exist or
// cannot be read, input_error when a file is none of those (the message says what was expected).
// Only the runs `selection` asks for are kept (see select_runs).
ReportData load_report_input(const std::filesystem::path& input, const RunSelection& selection = RunSelection::latest());

ReportData report_from_metrics(const MetricsCollection& metrics, std::string source = {});
// `document` is promptfoo's whole `-o` output, or its inner `results` object. Throws input_error otherwise.
ReportData report_from_promptfoo(const boost::json::value& document, std::string source = {});

// ---- summary ------------------------------------------------------------------------------------------

struct GroupSummary {
    std::string provider;
    std::string model;
    std::size_t total = 0, passed = 0, errors = 0;
    double runtime_total_s = 0.0, runtime_max_s = 0.0;
    std::optional<double> memory_max_mb;
    std::size_t tasks = 0;                  // distinct tasks (a task in two runs counts twice)
    std::size_t min_samples_per_task = 0;
    std::size_t max_samples_per_task = 0;
    // k -> pass@k (unbiased estimator, mean over tasks); only when some task has several samples in one run.
    // Samples are the rows of one task within one run: a re-run is a new evaluation, not more samples.
    std::map<std::size_t, double> pass_at_k;
    double pass_rate() const noexcept { return total ? static_cast<double>(passed) / static_cast<double>(total) : 0.0; }
};

struct OutcomeCount {
    std::size_t passed = 0, failed = 0;
};

struct ReportSummary {
    std::size_t total = 0, passed = 0, failed = 0, errors = 0;  // failed excludes errors
    double runtime_total_s = 0.0;
    std::optional<double> memory_max_mb;
    std::vector<GroupSummary> groups;                 // per provider/model, in order of first appearance
    std::map<std::string, OutcomeCount> outcomes;     // outcome -> (passed, failed)
    double pass_rate() const noexcept { return total ? static_cast<double>(passed) / static_cast<double>(total) : 0.0; }
};

ReportSummary summarize(const ReportData& data);

// ---- rendering ----------------------------------------------------------------------------------------

enum class ReportFormat { markdown, html, json, junit };
// "md"/"markdown", "html", "json", "junit"/"xml".
std::optional<ReportFormat> report_format_from_string(std::string_view name) noexcept;
std::string_view file_extension(ReportFormat format) noexcept;  // md, html, json, xml

// The tutorial's table first (| task | provider | model | success | runtime_s |), a summary line, then
// sections per provider/model (pass@k), per outcome and per failure. Readers of the table stop at its end.
std::string render_markdown(const ReportData& data);
std::string render_markdown(const MetricsCollection& metrics);
// {"format": "e2beval-report", "version": 1, "source", "summary", "rows", "skipped"}.
boost::json::object report_to_json(const ReportData& data);
std::string render_json(const ReportData& data);
// One <testsuite> per provider/model, one <testcase> per row, <failure>/<error> with the reason.
std::string render_junit(const ReportData& data);
// One self-contained page: summary, inline SVG charts, a sortable table with expandable details.
std::string render_html(const ReportData& data);

std::string render_report(const ReportData& data, ReportFormat format);

// Reads `input` (see load_report_input), writes the report to `output`, returns the number of rows.
// Throws io_error when the output cannot be written.
std::size_t write_report(const std::filesystem::path& input, const std::filesystem::path& output, ReportFormat format,
                         const RunSelection& selection = RunSelection::latest());

// The tutorial's promptfoo_report.md from a metrics directory (used by `e2beval eval`, for the run it
// wrote); tolerant of an empty directory. Returns the number of rows.
std::size_t write_markdown_report(const std::filesystem::path& results_dir, const std::filesystem::path& output,
                                  const RunSelection& selection = RunSelection::latest());

// One sentence on which runs a report shows and how to see the others; empty when the source holds one run.
std::string describe_runs(const ReportData& data);

}  // namespace e2beval

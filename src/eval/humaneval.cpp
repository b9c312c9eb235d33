// HumanEval: reading the dataset and samples (plain or gzip JSONL), building the check program, running
// all samples as one batch and computing pass@k.
#include "e2beval/eval/humaneval.hpp"

#include <zlib.h>

#include <boost/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

template <typename Record>
std::vector<Record> read_jsonl(const std::filesystem::path& path, const std::vector<std::string_view>& fields,
                               Record (*make)(const json::object&)) {
    const auto content = read_maybe_gzip(path);
    require_clean_text(content, "'" + path.string() + "'");
    std::vector<Record> records;
    std::istringstream lines(content);
    std::size_t number = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto where = path.filename().string() + " line " + std::to_string(number);
        boost::system::error_code parse_error;
        const auto value = json::parse(line, parse_error);
        if (parse_error || !value.is_object()) throw input_error(where + " is not a JSON object");
        for (const auto field : fields) {
            const auto* found = value.get_object().if_contains(field);
            if (!found || !found->is_string())
                throw input_error(where + " has no string field `" + std::string(field) + "`");
        }
        records.push_back(make(value.get_object()));
    }
    if (records.empty()) throw input_error("'" + path.string() + "' holds no records");
    return records;
}

std::string text(const json::object& object, std::string_view key) { return std::string(object.at(key).as_string()); }

HumanEvalTask make_task(const json::object& o) {
    return {text(o, "task_id"), text(o, "prompt"), text(o, "canonical_solution"), text(o, "test"), text(o, "entry_point")};
}

HumanEvalSample make_sample(const json::object& o) { return {text(o, "task_id"), text(o, "completion")}; }

// human-eval's result strings: "passed", "timed out", "failed: <exception>".
std::string describe(const ExecResult& exec) {
    if (exec.outcome == Outcome::ok) return "passed";
    if (exec.outcome == Outcome::timeout) return "timed out";
    std::string last;
    std::istringstream lines(exec.stderr_data);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line[0] != ' ') last = line;
    if (exec.outcome == Outcome::exit_nonzero && !last.empty()) return "failed: " + last;
    return "failed: " + std::string(to_string(exec.outcome)) + (exec.detail.empty() ? "" : " (" + exec.detail + ")");
}

std::string completion_marker() {
    std::random_device device;
    std::ostringstream text;
    text << "e2beval-humaneval-passed-" << std::hex << device() << device() << device();
    return text.str();
}

}  // namespace

// The whole file, gunzipped when it is gzip (zlib's gzread passes plain files through unchanged).
std::string read_maybe_gzip(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw input_error("'" + path.string() + "' does not exist or is not a file; check the path");
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) throw io_error("cannot open '" + path.string() + "'");
    std::string content;
    char buffer[1 << 16];
    int n;
    while ((n = gzread(file, buffer, sizeof buffer)) > 0) content.append(buffer, static_cast<std::size_t>(n));
    const bool failed = n < 0;
    gzclose(file);
    if (failed) throw io_error("'" + path.string() + "' is a damaged gzip file");
    return content;
}

std::vector<HumanEvalTask> load_humaneval(const std::filesystem::path& path) {
    return read_jsonl<HumanEvalTask>(path, {"task_id", "prompt", "canonical_solution", "test", "entry_point"}, make_task);
}

std::vector<HumanEvalSample> load_samples(const std::filesystem::path& path) {
    return read_jsonl<HumanEvalSample>(path, {"task_id", "completion"}, make_sample);
}

std::string humaneval_program(const HumanEvalTask& task, std::string_view completion) {
    return task.prompt + std::string(completion) + "\n" + task.test + "\n" + "check(" + task.entry_point + ")\n";
}

double pass_at_k(std::size_t samples, std::size_t correct, std::size_t k) {
    if (k == 0 || k > samples) throw input_error("pass@k needs 1 <= k <= samples per task");
    if (samples - correct < k) return 1.0;
    double all_fail = 1.0;  // prod_{i=n-c+1}^{n} (1 - k/i)
    for (std::size_t i = samples - correct + 1; i <= samples; ++i) all_fail *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
    return 1.0 - all_fail;
}

HumanEvalReport evaluate_humaneval(Sandbox& sandbox, const std::vector<HumanEvalTask>& tasks,
                                   const std::vector<HumanEvalSample>& samples, const ExecRequest& settings,
                                   const std::vector<std::size_t>& ks, const BatchOptions& batch) {
    std::map<std::string, const HumanEvalTask*> by_id;
    for (const auto& task : tasks) by_id[task.task_id] = &task;
    std::vector<HumanEvalSample> work = samples;
    if (work.empty())
        for (const auto& task : tasks) work.push_back({task.task_id, task.canonical_solution});

    const auto marker = completion_marker();
    std::vector<ExecRequest> requests;
    for (const auto& sample : work) {
        const auto found = by_id.find(sample.task_id);
        if (found == by_id.end())
            throw input_error("sample for unknown task '" + sample.task_id + "'; is it from this HumanEval file?");
        ExecRequest request = settings;
        request.language = Language::python;
        // A completion that calls sys.exit(0) or os._exit(0) before check() ran must not pass: the program
        // passes only when it reaches the end and prints this run's marker.
        request.code = humaneval_program(*found->second, sample.completion) + "print(" + json::serialize(json::string(marker)) + ")\n";
        requests.push_back(std::move(request));
    }
    auto results = execute_many(sandbox, requests, batch);

    HumanEvalReport report;
    for (std::size_t i = 0; i < work.size(); ++i) {
        HumanEvalSampleResult result;
        result.task_id = work[i].task_id;
        result.completion = work[i].completion;
        const auto& out = results[i].stdout_data;
        const bool reached_end = out.size() >= marker.size() + 1 && out.compare(out.size() - marker.size() - 1, marker.size(), marker) == 0;
        result.passed = results[i].outcome == Outcome::ok && reached_end;
        result.result = results[i].outcome == Outcome::ok && !reached_end
                            ? "failed: the program exited before check() finished (sys.exit or os._exit in the completion)"
                            : describe(results[i]);
        result.exec = std::move(results[i]);
        if (reached_end) result.exec.stdout_data.erase(result.exec.stdout_data.size() - marker.size() - 1);  // ours, not the sample's
        auto& [n, c] = report.per_task[result.task_id];
        ++n;
        c += result.passed ? 1 : 0;
        report.samples.push_back(std::move(result));
    }
    for (const auto k : ks) {
        bool possible = !report.per_task.empty();
        double total = 0.0;
        for (const auto& [task, counts] : report.per_task) {
            if (counts.first < k) possible = false;
            else total += pass_at_k(counts.first, counts.second, k);
        }
        if (possible) report.pass_at[k] = total / static_cast<double>(report.per_task.size());
    }
    return report;
}

}  // namespace e2beval

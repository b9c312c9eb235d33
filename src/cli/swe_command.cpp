// `e2beval swe`: SWE-bench-style repair evaluation (docs/swe.md). Reads SWE-bench's instances and predictions
// JSONL, evaluates each prediction in its own session (src/swe/evaluate.cpp), --jobs at a time, writes one report
// per prediction and prints a summary like SWE-bench's harness; --validate checks instances with their gold patch
// and no patch instead.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include <boost/json.hpp>

#include "cli/commands.hpp"
#include "cli/python_interpreter.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/local/templates.hpp"
#include "e2beval/swe/evaluate.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;

namespace e2beval::cli {

namespace {

using namespace e2beval::swe;

// The interpreter as the sandbox will see it, with its directory kept (a virtualenv's bin/ holds its pytest):
// a path made absolute, a bare name looked up on PATH.
std::string python_path_for_sandbox(const std::string& interpreter) {
    if (interpreter.find('/') != std::string::npos) return fs::absolute(interpreter).lexically_normal().string();
    const char* path = std::getenv("PATH");
    std::istringstream directories(path ? path : "");
    for (std::string directory; std::getline(directories, directory, ':');) {
        const auto candidate = fs::path(directory.empty() ? "." : directory) / interpreter;
        if (::access(candidate.c_str(), X_OK) == 0) return fs::absolute(candidate).lexically_normal().string();
    }
    return interpreter;
}

unsigned swe_jobs_option(const ParsedArgs& args) {
    const auto text = args.value("--jobs").value_or("1");
    if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) == 0)
        throw usage_error("--jobs expects a whole number from 1 to 999, got '" + text + "'");
    return static_cast<unsigned>(std::stoul(text));
}

// A file-name-safe form of an id or a model name ("org/model" → "org__model").
std::string file_name(std::string text) {
    for (auto& c : text)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
    return text.empty() || text[0] == '.' ? "_" + text : text;
}

void write_json(const fs::path& path, const json::value& value) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << to_json_text(value) << "\n";
}

std::string describe(const swe::Verdict& verdict) {
    std::string text(to_string(verdict.status));
    if (verdict.status == EvaluationStatus::unresolved || verdict.status == EvaluationStatus::resolved)
        text += " (" + std::string(to_string(verdict.resolution)) + ")";
    if (verdict.refused) text += ": refused: " + *verdict.refused;
    else if (verdict.status == EvaluationStatus::error) text += ": " + verdict.error;
    else if (verdict.status == EvaluationStatus::empty_patch) text += ": no diff in the prediction";
    else if (!verdict.applied) text += ": the patch did not apply";
    else if (!verdict.suite_completed) text += ": the test run did not finish";
    return text;
}

struct Job {
    const Instance* instance;
    std::optional<Prediction> prediction;  // none: --validate
};

int swe_command(const ParsedArgs& args) {
    const auto instances_path = args.value("--instances");
    if (!instances_path) throw usage_error("--instances is required: a JSONL of SWE-bench instances");
    const bool validate = args.flag("--validate");
    const auto predictions_path = args.value("--predictions");
    if (!validate && !predictions_path) throw usage_error("--predictions is required (or --validate to check the instances themselves)");
    const auto jobs = swe_jobs_option(args);
    const fs::path output_dir = args.value("--output-dir").value_or("swe_reports");

    auto instances = read_instances(*instances_path);
    const auto wanted = args.names("--instance-id");
    if (!wanted.empty()) {
        std::erase_if(instances, [&](const Instance& instance) {
            return std::find(wanted.begin(), wanted.end(), instance.instance_id) == wanted.end();
        });
        if (instances.empty()) throw usage_error("no instance in " + *instances_path + " has the --instance-id given");
    }

    EvaluationOptions options;
    options.protect_tests = args.flag("--protect-tests");
    options.template_name = args.value("--template").value_or("");
    if (const auto timeout = args.number("--timeout")) {
        if (*timeout <= 0) throw usage_error("--timeout expects a positive number of seconds");
        options.test_timeout = std::chrono::milliseconds(static_cast<long long>(*timeout * 1000));
    }
    if (!options.template_name.empty() && args.value("--python"))
        throw usage_error("--python and --template both name where the tests' Python comes from: give one");

    const auto choice = chosen_python(args.value("--python"));
    LocalSandboxOptions sandbox_options;
    sandbox_options.python_executable = choice.interpreter;
    sandbox_options.python_info = require_working_python(choice);
    sandbox_options.pool.enabled = false;  // sessions only
    sandbox_options.ready_sessions = jobs;
    // With a template, its virtualenv is the tests' Python (first on the session's PATH); else --python's.
    if (options.template_name.empty()) options.python_executable = python_path_for_sandbox(choice.interpreter);
    else find_template(options.template_name);  // an unknown name: input_error listing the known ones
    LocalSandbox sandbox(sandbox_options);

    std::vector<Job> work;
    std::vector<std::string> unknown_predictions;
    if (validate) {
        for (const auto& instance : instances) work.push_back({&instance, std::nullopt});
    } else {
        for (auto& prediction : read_predictions(*predictions_path)) {
            const auto found = std::find_if(instances.begin(), instances.end(),
                                            [&](const Instance& instance) { return instance.instance_id == prediction.instance_id; });
            if (found != instances.end()) work.push_back({&*found, std::move(prediction)});
            else if (wanted.empty()) unknown_predictions.push_back(prediction.instance_id);
        }
        for (const auto& id : unknown_predictions)
            std::cerr << "e2beval swe: a prediction names instance " << id << ", which " << *instances_path << " does not hold; skipped\n";
    }

    std::vector<swe::Verdict> verdicts(work.size());
    std::vector<std::vector<std::string>> problems(work.size());
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::mutex print;
    auto worker = [&] {
        for (std::size_t index; (index = next++) < work.size();) {
            const auto& job = work[index];
            if (job.prediction) {
                verdicts[index] = evaluate_patch(sandbox, *job.instance, job.prediction->model_patch, options,
                                                 job.prediction->model_name_or_path);
            } else {
                auto validation = validate_instance(sandbox, *job.instance, options);
                problems[index] = validation.problems;
                verdicts[index] = validation.gold;
                write_json(output_dir / "validation" / file_name(job.instance->instance_id) / "empty.json", to_json(validation.empty));
            }
            const auto& verdict = verdicts[index];
            const auto model = job.prediction ? file_name(job.prediction->model_name_or_path) : std::string("validation");
            auto report = to_json(verdict);
            if (!job.prediction) {
                json::array listed;
                for (const auto& problem : problems[index]) listed.emplace_back(problem);
                report["validation_problems"] = std::move(listed);
            }
            write_json(output_dir / model / file_name(verdict.instance_id) / (job.prediction ? "report.json" : "gold.json"), report);
            std::lock_guard lock(print);
            std::cerr << "[" << ++done << "/" << work.size() << "] " << verdict.instance_id << "  " << verdict.model_name_or_path
                      << ": " << (job.prediction ? describe(verdict) : problems[index].empty() ? "valid" : "INVALID: " + problems[index].front())
                      << "  (" << std::fixed << std::setprecision(1) << std::chrono::duration<double>(verdict.timings.total).count()
                      << " s)\n";
        }
    };
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < std::min<std::size_t>(jobs, work.size()); ++i) threads.emplace_back(worker);
    for (auto& thread : threads) thread.join();

    if (validate) {
        std::size_t invalid = 0;
        json::object summary;
        for (std::size_t i = 0; i < work.size(); ++i) {
            json::array listed;
            for (const auto& problem : problems[i]) listed.emplace_back(problem);
            if (!problems[i].empty()) ++invalid;
            summary[work[i].instance->instance_id] = std::move(listed);
        }
        write_json(output_dir / "validation.json", summary);
        std::cout << "Instances validated: " << work.size() << "\nValid: " << work.size() - invalid << "\nInvalid: " << invalid << "\n";
        for (std::size_t i = 0; i < work.size(); ++i)
            for (const auto& problem : problems[i]) std::cout << "  " << work[i].instance->instance_id << ": " << problem << "\n";
        std::cout << "Reports: " << (output_dir / "validation").string() << "/\n";
        return invalid == 0 ? 0 : kExitFailed;
    }

    // The harness's summary: counts and ids per outcome, with the model's failures apart from the machinery's.
    json::object summary{{"total_instances", instances.size()}, {"submitted_instances", work.size()}};
    std::map<EvaluationStatus, json::array> ids;
    std::size_t completed = 0;
    for (std::size_t i = 0; i < work.size(); ++i) {
        ids[verdicts[i].status].emplace_back(verdicts[i].instance_id + "/" + verdicts[i].model_name_or_path);
        if (verdicts[i].status == EvaluationStatus::resolved || verdicts[i].status == EvaluationStatus::unresolved) ++completed;
    }
    summary["completed_instances"] = completed;
    const std::pair<EvaluationStatus, const char*> groups[] = {{EvaluationStatus::resolved, "resolved"},
                                                                {EvaluationStatus::unresolved, "unresolved"},
                                                                {EvaluationStatus::empty_patch, "empty_patch"},
                                                                {EvaluationStatus::error, "error"}};
    for (const auto& [status, name] : groups) {
        summary[std::string(name) + "_instances"] = ids[status].size();
        summary[std::string(name) + "_ids"] = ids[status];
    }
    write_json(output_dir / "summary.json", summary);
    std::cout << "Total instances: " << instances.size() << "\n"
              << "Predictions submitted: " << work.size() << "\n"
              << "Predictions completed: " << completed << "\n";
    for (const auto& [status, name] : groups) {
        std::cout << "Predictions " << name << ": " << ids[status].size() << "\n";
        for (const auto& id : ids[status]) std::cout << "  " << std::string(id.as_string()) << "\n";
    }
    std::cout << "Reports: " << output_dir.string() << "/ (summary.json, MODEL/INSTANCE/report.json)\n";
    return ids[EvaluationStatus::error].empty() ? 0 : kExitFailed;
}

}  // namespace

Command make_swe_command() {
    return {{"swe", "e2beval swe --instances I.jsonl (--predictions P.jsonl | --validate) [OPTIONS]",
             "SWE-bench-style repair evaluation: apply each model patch in a sandbox, run the tests, grade.",
             "Each prediction runs in its own session: the repository at base_commit is copied in, the test_patch\n"
             "applied, the model patch refused if it reaches outside the repository (or edits the tests, with\n"
             "--protect-tests), else applied with git apply, --3way, --reject, then patch --fuzz=5; the tests run with\n"
             "no network and session limits; results come from the test framework's own report, and are graded as\n"
             "SWE-bench grades them (FULL / PARTIAL / NONE). Formats, verdicts and reports: docs/swe.md.\n"
             "Exit status: 0 when every prediction was evaluated (resolved or not), 1 when some could not be\n"
             "(status error: repository, test patch or sandbox broken) or, with --validate, an instance is invalid.",
             {{"--instances", "FILE", "SWE-bench instances, one JSON object a line (repo: a directory, git bundle or tarball)"},
              {"--predictions", "FILE", "predictions: instance_id, model_name_or_path, model_patch (a diff or a raw model answer)"},
              {"--instance-id", "ID", "evaluate only these instances (comma-separated)"},
              {"--jobs", "N", "evaluations at once, each in its own sandbox (default 1)"},
              {"--output-dir", "DIR", "where the reports go (default swe_reports)"},
              {"--python", "PATH", "the Python (e.g. a virtualenv's bin/python, with pytest) the tests run with"},
              {"--template", "NAME", "a template (e2beval template build) whose virtualenv provides the tests' Python and packages"},
              {"--timeout", "SECONDS", "the test run's limit (default 300)"},
              {"--protect-tests", "", "refuse patches that touch the test files (those of the test patch and the test ids)"},
              {"--validate", "", "check the instances: the gold patch must resolve, no patch must leave FAIL_TO_PASS failing"}},
             0, 0},
            swe_command};
}

}  // namespace e2beval::cli

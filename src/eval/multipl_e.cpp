// MultiPL-E rows and completions (plain or gzip JSONL, a broken line failing alone), MultiPL-E's verdict per
// language, and the batch that assembles, runs and judges every answer, with pass@k per language.
#include "e2beval/eval/multipl_e.hpp"

#include <boost/json.hpp>
#include <set>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"
#include "e2beval/eval/humaneval.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

const json::string* row_string(const json::object& row, std::string_view key) {
    const auto* found = row.if_contains(key);
    return found && found->is_string() ? &found->get_string() : nullptr;
}

// Each line of a JSONL file as an object, or the reason it is not one.
template <typename Visit>
void for_each_jsonl_object(const std::filesystem::path& path, Visit&& visit) {
    const auto content = read_maybe_gzip(path);
    require_clean_text(content, "'" + path.string() + "'");
    std::istringstream lines(content);
    std::size_t number = 0;
    std::size_t rows = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        ++rows;
        boost::system::error_code parse_error;
        const auto value = json::parse(line, parse_error);
        if (parse_error) visit(number, nullptr, "line " + std::to_string(number) + " is not valid JSON (" + parse_error.message() + ")");
        else if (!value.is_object()) visit(number, nullptr, "line " + std::to_string(number) + " is not a JSON object");
        else visit(number, &value.get_object(), std::string());
    }
    if (rows == 0) throw input_error("'" + path.string() + "' holds no rows");
}

double as_milliseconds(std::chrono::nanoseconds duration) { return std::chrono::duration<double, std::milli>(duration).count(); }

}  // namespace

MultiplETask multipl_e_task_from_json(const json::object& row) {
    MultiplETask task;
    const auto* name = row_string(row, "name");
    if (!name) name = row_string(row, "task_id");
    if (!name) throw input_error("no string field `name` (or `task_id`): the task's id, e.g. \"HumanEval_0_has_close_elements\"");
    task.task_id = std::string(*name);
    const auto* language = row_string(row, "language");
    if (!language) throw input_error("row '" + task.task_id + "' has no string field `language` (cpp, go_test.go, java, js, rs, sh, ts)");
    const auto parsed = multipl_e_language(*language);
    if (!parsed)
        throw input_error("row '" + task.task_id + "': language '" + std::string(*language) +
                          "' is not one e2beval assembles (cpp, go_test.go, java, js, rs, sh, ts)");
    task.language = *parsed;
    for (const auto& [key, target] : {std::pair<std::string_view, std::string*>{"prompt", &task.prompt}, {"tests", &task.tests}}) {
        const auto* text = row_string(row, key);
        if (!text) throw input_error("row '" + task.task_id + "' has no string field `" + std::string(key) + "`");
        *target = std::string(*text);
    }
    const auto* stops = row.if_contains("stop_tokens");
    if (!stops || !stops->is_array())
        throw input_error("row '" + task.task_id + "' has no field `stop_tokens` (a list of strings)");
    for (const auto& stop : stops->get_array()) {
        if (!stop.is_string()) throw input_error("row '" + task.task_id + "': `stop_tokens` holds a value that is not a string");
        task.stop_tokens.emplace_back(stop.get_string());
    }
    multipl_e_entry_point(task);  // a prompt without a function is refused here, not at run time
    return task;
}

std::vector<MultiplERow> load_multipl_e(const std::filesystem::path& path, const std::optional<std::string>& completion_field) {
    std::vector<MultiplERow> rows;
    for_each_jsonl_object(path, [&](std::size_t line, const json::object* object, std::string problem) {
        MultiplERow row;
        row.line = line;
        row.task.task_id = "line-" + std::to_string(line);
        if (object) {
            try {
                row.task = multipl_e_task_from_json(*object);
                if (completion_field) {
                    if (const auto* answer = row_string(*object, *completion_field)) row.answer = std::string(*answer);
                    else problem = "row '" + row.task.task_id + "' has no string field `" + *completion_field + "` (--completion-field)";
                }
            } catch (const input_error& failure) {
                if (const auto* name = row_string(*object, "name")) row.task.task_id = std::string(*name);
                problem = failure.what();
            }
        }
        row.problem = problem.empty() ? problem : path.filename().string() + " line " + std::to_string(line) + ": " + problem;
        rows.push_back(std::move(row));
    });
    return rows;
}

std::vector<MultiplECompletion> load_multipl_e_completions(const std::filesystem::path& path) {
    std::vector<MultiplECompletion> completions;
    for_each_jsonl_object(path, [&](std::size_t line, const json::object* object, std::string problem) {
        MultiplECompletion completion;
        completion.line = line;
        completion.task_id = "line-" + std::to_string(line);
        if (object) {
            const auto* task_id = row_string(*object, "task_id");
            if (!task_id) task_id = row_string(*object, "name");
            const auto* text = row_string(*object, "completion");
            if (task_id) completion.task_id = std::string(*task_id);
            if (!task_id) problem = "no string field `task_id`";
            else if (!text) problem = "no string field `completion`";
            else completion.completion = std::string(*text);
            if (const auto* language = row_string(*object, "language")) {
                completion.language = multipl_e_language(*language);
                if (!completion.language) problem = "language '" + std::string(*language) + "' is not a MultiPL-E language e2beval assembles";
            }
        }
        completion.problem = problem.empty() ? problem : path.filename().string() + " line " + std::to_string(line) + ": " + problem;
        completions.push_back(std::move(completion));
    });
    return completions;
}

MultiplEVerdict judge_multipl_e(Language language, const ExecResult& result) {
    MultiplEVerdict verdict;
    verdict.outcome = std::string(to_string(result.outcome));
    verdict.stage = verdict.outcome.starts_with("compile_") ? "compile" : "run";
    verdict.detail = result.detail;
    if (result.compile && result.compile->outcome != Outcome::ok) {
        verdict.stage = "compile";
        if (!result.compile->detail.empty()) verdict.detail = result.compile->detail;
        return verdict;
    }
    if (language == Language::go) {
        // `go test`: MultiPL-E reads its stdout: [setup failed]/[build failed] is a compile error, FAIL a failure.
        const auto& out = result.stdout_data;
        if (out.find("[setup failed]") != std::string::npos || out.find("[build failed]") != std::string::npos) {
            verdict.outcome = "compile_error";
            verdict.stage = "compile";
            return verdict;
        }
        if (result.outcome == Outcome::ok && out.find("FAIL") != std::string::npos) {
            verdict.outcome = "exit_nonzero";
            verdict.detail = "go test reported FAIL";
            return verdict;
        }
    }
    verdict.pass = result.outcome == Outcome::ok;
    return verdict;
}

ExecRequest multipl_e_request(const AssembledProgram& program, const ExecRequest& settings) {
    // The program as it is: a compiled language's compile stage and its Java entry class come from the language's
    // descriptor (src/core/languages/); a backend that cannot compile says so in the result.
    ExecRequest request = settings;
    request.language = program.language;
    request.code = program.source;
    return request;
}

std::chrono::milliseconds multipl_e_run_timeout(Language language) noexcept {
    switch (language) {
        case Language::javascript:
        case Language::rust: return std::chrono::seconds(5);
        case Language::go: return std::chrono::seconds(30);
        default: return std::chrono::seconds(15);
    }
}

MultiplEReport evaluate_multipl_e(Sandbox& sandbox, const std::vector<MultiplEItem>& items, const MultiplEOptions& options,
                                  const ExecRequest& settings, const std::vector<std::size_t>& ks, const BatchOptions& batch) {
    MultiplEReport report;
    report.results.resize(items.size());
    std::vector<ExecRequest> requests;
    std::vector<std::size_t> request_item;
    std::map<Language, std::string> toolchain_problems;
    for (std::size_t i = 0; i < items.size(); ++i) {
        auto& result = report.results[i];
        result.task_id = items[i].task->task_id;
        result.language = items[i].task->language;
        try {
            result.program = assemble_multipl_e(*items[i].task, items[i].answer, options.kind);
        } catch (const input_error& failure) {
            result.verdict = {false, "input_error", "assemble", failure.what()};
            continue;
        }
        if (options.toolchain_problem) {
            auto known = toolchain_problems.find(result.language);
            if (known == toolchain_problems.end()) known = toolchain_problems.emplace(result.language, options.toolchain_problem(result.language)).first;
            if (!known->second.empty()) {
                result.verdict = {false, std::string(kToolchainMissing), "compile", known->second};
                continue;
            }
        }
        auto request = multipl_e_request(result.program, settings);
        if (options.multipl_e_timeouts) {
            request.limits.wall_time = multipl_e_run_timeout(result.language);
            request.limits.cpu_time = request.limits.wall_time;
        }
        if (options.memory_bytes) request.limits.memory_bytes = *options.memory_bytes;
        requests.push_back(std::move(request));
        request_item.push_back(i);
    }
    // Each distinct program's first answer goes first, its repeats (pass@k's identical samples) after every first:
    // the --jobs slots then compile different programs side by side, and a repeat finds its program in the compile
    // cache instead of waiting for the same compile beside it.
    {
        std::set<std::pair<Language, std::string_view>> seen;
        std::vector<std::size_t> firsts, repeats;
        for (std::size_t r = 0; r < requests.size(); ++r) {
            const auto& program = report.results[request_item[r]].program;
            (seen.emplace(program.language, program.source).second ? firsts : repeats).push_back(r);
        }
        if (!repeats.empty()) {
            firsts.insert(firsts.end(), repeats.begin(), repeats.end());
            std::vector<ExecRequest> ordered_requests;
            std::vector<std::size_t> ordered_items;
            for (const auto r : firsts) {
                ordered_requests.push_back(std::move(requests[r]));
                ordered_items.push_back(request_item[r]);
            }
            requests = std::move(ordered_requests);
            request_item = std::move(ordered_items);
        }
    }
    BatchOptions forwarded = batch;
    if (batch.on_done) {
        // Progress counts every answer: the ones that never reach the sandbox are done already.
        const std::size_t skipped = items.size() - requests.size();
        forwarded.on_done = [&, skipped](std::size_t index, std::size_t done, std::size_t) {
            batch.on_done(request_item[index], done + skipped, items.size());
        };
    }
    auto executed = execute_many(sandbox, requests, forwarded);
    for (std::size_t r = 0; r < executed.size(); ++r) {
        auto& result = report.results[request_item[r]];
        result.verdict = judge_multipl_e(result.language, executed[r]);
        const auto& compile = executed[r].compile;
        result.compile_ms = compile ? as_milliseconds(compile->wall_time) : 0.0;
        result.run_ms = compile && compile->outcome != Outcome::ok ? 0.0 : as_milliseconds(executed[r].wall_time);
        result.exec = std::move(executed[r]);
    }

    // pass@k per language over its tasks: (answers, passes) per task.
    std::map<std::string, std::map<std::string, std::pair<std::size_t, std::size_t>>> counts;
    for (const auto& result : report.results) {
        if (result.verdict.outcome == kToolchainMissing) continue;  // not judged: neither a pass nor a failure
        auto& [n, c] = counts[std::string(to_string(result.language))][result.task_id];
        ++n;
        c += result.verdict.pass ? 1 : 0;
    }
    for (const auto& [language, tasks] : counts)
        for (const auto k : ks) {
            bool possible = true;
            double total = 0;
            for (const auto& [task, nc] : tasks) {
                if (nc.first < k) possible = false;
                else total += pass_at_k(nc.first, nc.second, k);
            }
            if (possible && !tasks.empty()) report.pass_at_k[language][k] = total / static_cast<double>(tasks.size());
        }
    return report;
}

}  // namespace e2beval

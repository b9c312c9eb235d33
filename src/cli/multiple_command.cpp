// `e2beval eval --multipl-e FILE`: reads the rows and the answers (a field of each row, or a completions file),
// reports every row or answer that cannot be judged and judges the others, then prints a table per language (or
// --json) and exits 0 when every answer passed, 1 when one failed, 2 when an input row was broken.
#include "cli/multiple_command.hpp"

#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "cli/commands.hpp"
#include "cli/table_text.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/text.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/eval/multipl_e.hpp"
#include "local/interpreters.hpp"
#include "local/toolchains.hpp"

namespace e2beval::cli {

namespace json = boost::json;

namespace multiple_command {

// Progress on stderr: a line redrawn in place on a terminal, a line per tenth of the work otherwise.
class Progress {
public:
    explicit Progress(std::size_t total) : total_(total), terminal_(::isatty(2) != 0) {}
    void update(std::size_t done) {
        if (terminal_) {
            std::cerr << "\rmultipl-e: " << done << "/" << total_ << std::flush;
        } else if (total_ > 0 && (done * 10 / total_ > last_tenth_ || done == total_)) {
            last_tenth_ = done * 10 / total_;
            std::cerr << "multipl-e: " << done << "/" << total_ << " judged\n";
        }
    }
    ~Progress() {
        if (terminal_) std::cerr << "\r" << std::string(40, ' ') << "\r" << std::flush;
    }

private:
    std::size_t total_;
    bool terminal_;
    std::size_t last_tenth_ = 0;
};

struct Problem {
    std::string task_id;
    std::string message;
};

std::string file_safe(std::string name) {
    for (auto& c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    return name;
}

}  // namespace multiple_command

int multipl_e_command(const ParsedArgs& args, const MultiplESettings& settings) {
    using namespace multiple_command;
    const std::filesystem::path dataset = *args.value("--multipl-e");
    const auto field = args.value("--completion-field");
    const auto completions_path = args.value("--completions");
    if (field && completions_path) throw usage_error("give --completion-field FIELD or --completions FILE, not both");
    if (!field && !completions_path)
        throw usage_error("--multipl-e needs the answers: --completion-field FIELD (a field of each row, e.g. gpt_solution) "
                          "or --completions FILE (JSONL rows {task_id, completion})");
    const auto kind = answer_kind_from_string(args.value("--answer-kind").value_or("auto"));
    if (!kind) throw usage_error("--answer-kind must be continuation, freeform or auto, got '" + *args.value("--answer-kind") + "'");

    std::vector<Problem> problems;
    const auto rows = load_multipl_e(dataset, field);
    std::vector<MultiplEItem> items;
    std::multimap<std::string, const MultiplETask*> by_id;
    for (const auto& row : rows) {
        if (!row.problem.empty()) {
            problems.push_back({row.task.task_id, row.problem});
            continue;
        }
        by_id.emplace(row.task.task_id, &row.task);
        if (field) items.push_back({&row.task, *row.answer});
    }
    if (completions_path) {
        for (const auto& completion : load_multipl_e_completions(*completions_path)) {
            if (!completion.problem.empty()) {
                problems.push_back({completion.task_id, completion.problem});
                continue;
            }
            const MultiplETask* task = nullptr;
            std::size_t matches = 0;
            for (auto [it, end] = by_id.equal_range(completion.task_id); it != end; ++it)
                if (!completion.language || it->second->language == *completion.language) {
                    task = it->second;
                    ++matches;
                }
            const auto where = std::filesystem::path(*completions_path).filename().string() + " line " + std::to_string(completion.line);
            if (matches == 0)
                problems.push_back({completion.task_id, where + ": task '" + completion.task_id + "' is not a row of " +
                                                            dataset.filename().string() + "; is it the same dataset?"});
            else if (matches > 1)
                problems.push_back({completion.task_id, where + ": task '" + completion.task_id +
                                                            "' is in several languages of the dataset; add a `language` field"});
            else
                items.push_back({task, completion.completion});
        }
    }

    std::unique_ptr<Sandbox> sandbox = settings.make_sandbox();
    Progress progress(items.size());
    BatchOptions batch;
    batch.jobs = settings.jobs;
    batch.on_done = [&progress](std::size_t, std::size_t done, std::size_t) { progress.update(done); };
    MultiplEOptions options;
    options.kind = *kind;
    options.multipl_e_timeouts = !settings.limits_given;
    if (settings.memory_given) options.memory_bytes.reset();
    if (args.value("--backend").value_or("local") == "local") {
        // A language whose toolchain this host lacks: its answers are reported as not judged (with the package to
        // install), the other languages' judged as usual. Probed without preparing anything (Go's standard
        // library is prepared by its first compile).
        options.toolchain_problem = [node = local::configured_node("")](Language language) -> std::string {
            if (!describe(language).compiled()) return {};
            auto status = local::probe_toolchain(language, node);
            return status.toolchain ? std::string() : std::move(status.problem);
        };
    }
    const auto started = std::chrono::steady_clock::now();
    const auto report = evaluate_multipl_e(*sandbox, items, options, settings.request, settings.ks, batch);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    if (const auto directory = args.value("--emit-programs")) {
        // The assembled programs, for a reference run or a look: DIR/<language>/<task>[-N]/<file>.
        std::map<std::string, std::size_t> seen;
        for (const auto& result : report.results) {
            if (result.program.source.empty()) continue;
            const std::string key = std::string(to_string(result.language)) + "/" + file_safe(result.task_id);
            const std::size_t index = seen[key]++;
            const auto target = std::filesystem::path(*directory) / (key + (index ? "-" + std::to_string(index) : ""));
            std::filesystem::create_directories(target);
            std::ofstream out(target / result.program.file_name, std::ios::binary);
            out << result.program.source;
            if (!out) throw io_error("cannot write " + (target / result.program.file_name).string());
        }
    }

    std::size_t passed = 0;
    for (const auto& result : report.results) passed += result.verdict.pass ? 1 : 0;
    if (args.flag("--json")) {
        json::array results;
        for (const auto& result : report.results)
            results.push_back(json::object{{"task_id", result.task_id},
                                           {"language", std::string(to_string(result.language))},
                                           {"pass", result.verdict.pass},
                                           {"outcome", result.verdict.outcome},
                                           {"stage", result.verdict.stage},
                                           {"compile_ms", result.compile_ms},
                                           {"run_ms", result.run_ms},
                                           {"kind", std::string(to_string(result.program.kind))},
                                           {"assembly", to_valid_utf8(result.program.explanation)},
                                           {"detail", to_valid_utf8(result.verdict.detail)}});
        json::object pass_at_k;
        for (const auto& [language, by_k] : report.pass_at_k) {
            json::object values;
            for (const auto& [k, value] : by_k) values[std::to_string(k)] = value;
            pass_at_k[language] = std::move(values);
        }
        json::array errors;
        for (const auto& problem : problems) errors.push_back(json::object{{"task_id", problem.task_id}, {"error", problem.message}});
        std::cout << to_json_text(json::object{{"results", std::move(results)},
                                               {"pass_at_k", std::move(pass_at_k)},
                                               {"errors", std::move(errors)},
                                               {"passed", passed},
                                               {"total", report.results.size()},
                                               {"wall_time_s", elapsed}})
                  << std::endl;
    } else {
        for (const auto& result : report.results)
            if (!result.verdict.pass)
                std::cout << padded(result.task_id, 40) << " " << padded(std::string(to_string(result.language)), 10) << " "
                          << padded(result.verdict.outcome, 14) << " " << one_line(result.verdict.detail, 90) << "\n";
        std::map<std::string, std::pair<std::size_t, std::size_t>> per_language;
        for (const auto& result : report.results) {
            auto& [n, c] = per_language[std::string(to_string(result.language))];
            ++n;
            c += result.verdict.pass ? 1 : 0;
        }
        for (const auto& [language, counts] : per_language) {
            std::cout << "multipl-e " << padded(language, 10) << " " << counts.second << "/" << counts.first << " passed";
            if (const auto found = report.pass_at_k.find(language); found != report.pass_at_k.end())
                for (const auto& [k, value] : found->second) std::cout << ", pass@" << k << " = " << value;
            std::cout << "\n";
        }
        std::cout << "multipl-e: " << report.results.size() << " answers, " << passed << " passed in " << elapsed << " s\n";
    }
    for (const auto& problem : problems) std::cerr << "e2beval eval: " << problem.message << "\n";
    // Each language whose toolchain is missing, once: how many answers were not judged and what to install.
    std::map<std::string, std::pair<std::size_t, std::string>> not_judged;
    for (const auto& result : report.results)
        if (result.verdict.outcome == kToolchainMissing) {
            auto& [count, why] = not_judged[std::string(to_string(result.language))];
            ++count;
            why = result.verdict.detail;
        }
    for (const auto& [language, missing] : not_judged)
        std::cerr << "e2beval eval: " << missing.first << " " << language << " answer" << (missing.first == 1 ? "" : "s")
                  << " not judged: " << missing.second << "\n";
    if (!problems.empty()) return kExitUsage;
    return passed == report.results.size() ? 0 : kExitFailed;
}

}  // namespace e2beval::cli

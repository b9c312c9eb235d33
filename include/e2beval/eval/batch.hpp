// Batches: many executions or evaluations at once with bounded concurrency on one event loop. Results
// come back in input order, and one failing item never affects the others.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "e2beval/sandbox.hpp"
#include "e2beval/eval/runner.hpp"

namespace e2beval {

struct BatchOptions {
    std::size_t jobs = 2;  // sandboxes running at once (0 is taken as 1)
    // Called on the calling thread after each item completes, with the item's index.
    std::function<void(std::size_t index, std::size_t done, std::size_t total)> on_done;
};

// A request the sandbox refuses (bad input, a host below the required level) becomes that item's
// ExecResult with outcome sandbox_error and the reason in `detail`.
std::vector<ExecResult> execute_many(Sandbox& sandbox, const std::vector<ExecRequest>& requests,
                                     const BatchOptions& options = {});

struct EvaluationItem {
    std::string model_output;
    TestSpec spec;
};

std::vector<Verdict> evaluate_many(Sandbox& sandbox, const RunnerOptions& runner_options,
                                   const std::vector<EvaluationItem>& items, const BatchOptions& options = {});

}  // namespace e2beval

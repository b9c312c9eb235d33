// /submit's evaluation: the program or the cases run through run_code, the EvalResult built from their answers.
#include "server/sandbox_fusion/submit.hpp"

#include <exception>
#include <functional>
#include <optional>
#include <vector>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/array.hpp>

#include "server/sandbox_fusion/programs.hpp"
#include "server/sandbox_fusion/run_code.hpp"
#include "server/sandbox_fusion/stdio_cases.hpp"
#include "server/server_context.hpp"

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;
using boost::asio::awaitable;

namespace {

// Upstream's words (sandbox/utils/sandbox_client.py), its typo "Sanbox" corrected.
SubmitRefused sandbox_failed(const RunCodeResponse& response) {
    return SubmitRefused(500, "failed to request sandbox: Sandbox responded with error: " + response.message);
}

json::object eval_result(const SubmitRequest& request, bool accepted, const std::string& extracted_code,
                         const std::optional<std::string>& full_code, json::array tests,
                         const std::optional<std::string>& extracted_type, json::object extra) {
    json::object result;
    result["id"] = request.id;
    result["accepted"] = accepted;
    result["extracted_code"] = extracted_code;
    result["full_code"] = full_code ? json::value(*full_code) : json::value(nullptr);
    result["test_code"] = nullptr;
    result["tests"] = std::move(tests);
    result["extracted_type"] = extracted_type ? json::value(*extracted_type) : json::value(nullptr);
    result["extra"] = std::move(extra);
    return result;
}

json::object program_result(const SubmitRequest& request, const ProgramPlan& plan, const std::string& full_code,
                            const RunCodeResponse& response) {
    const bool accepted = response.status == "Success";
    json::object test;
    test["passed"] = accepted;
    test["exec_info"] = to_json(response);
    test["test_info"] = nullptr;
    json::array tests;
    tests.push_back(std::move(test));
    return eval_result(request, accepted, plan.extracted_code, full_code, std::move(tests), plan.extracted_type, plan.extra);
}

// The state the case workers of one submission share (one thread: the server's executor).
struct CaseRuns {
    ServerContext& context;
    const StdioPlan& plan;
    std::string client;
    bool run_all = false;
    std::size_t next = 0;                                // the next case to start, in order
    std::optional<std::size_t> first_failure;            // the lowest failed case so far
    std::vector<std::optional<RunCodeResponse>> responses;
    std::vector<bool> passed;
    std::exception_ptr error;                            // QueueFull, or a SandboxError as SubmitRefused
};

RunCodeRequest case_request(const StdioPlan& plan, std::size_t index) {
    RunCodeRequest request = plan.run;
    request.stdin_data = plan.cases[index].stdin_data;
    return request;
}

void record(CaseRuns& runs, std::size_t index, RunCodeResponse response) {
    if (response.status == "SandboxError") {
        if (!runs.error) runs.error = std::make_exception_ptr(sandbox_failed(response));
        return;
    }
    const bool passed = response.status == "Success" && response.run_result &&
                        stdout_matches(runs.plan.cases[index].expected_stdout, response.run_result->stdout_data.value_or(""));
    runs.passed[index] = passed;
    if (!passed && (!runs.first_failure || index < *runs.first_failure)) runs.first_failure = index;
    runs.responses[index] = std::move(response);
}

// Takes cases in order until none is left, one has failed (unless run_all), or something went wrong. Cases are
// started in order, so every case before the first failure has been started, and is finished when the workers are.
awaitable<void> case_worker(CaseRuns& runs) {
    while (!runs.error && (runs.run_all || !runs.first_failure) && runs.next < runs.plan.cases.size()) {
        const std::size_t index = runs.next++;
        RunCodeRequest request = case_request(runs.plan, index);
        std::string client = runs.client;  // named: no temporaries in a co_await's expression (GCC 12)
        try {
            RunCodeResponse response = co_await run_code(runs.context, std::move(request), std::move(client));
            record(runs, index, std::move(response));
        } catch (...) {
            if (!runs.error) runs.error = std::current_exception();
        }
    }
}

awaitable<void> run_cases(CaseRuns& runs) {
    using namespace boost::asio::experimental::awaitable_operators;
    const std::size_t workers = std::min(kCasesAtOnce, runs.plan.cases.size());
    if (workers == 3) co_await (case_worker(runs) && case_worker(runs) && case_worker(runs));
    else if (workers == 2) co_await (case_worker(runs) && case_worker(runs));
    else if (workers == 1) co_await case_worker(runs);
}

json::object stdio_result(const SubmitRequest& request, const CaseRuns& runs) {
    const bool full_case = request.config.flag("return_full_case");
    json::array tests;
    bool accepted = true;
    const std::size_t count = runs.run_all || !runs.first_failure ? runs.plan.cases.size() : *runs.first_failure + 1;
    for (std::size_t i = 0; i < count; ++i) {
        bool passed = false;
        tests.push_back(judge_case(runs.plan.cases[i], *runs.responses[i], full_case, passed));
        accepted = accepted && passed;
    }
    return eval_result(request, accepted, runs.plan.code, std::nullopt, std::move(tests), runs.plan.extracted_type, {});
}

// Extraction and assembly scan the answer (linear, but 100 MB is a lot of bytes): a large answer is planned on a
// thread of its own, so the I/O thread keeps answering everyone else; a small one (nearly every answer) at once,
// without a thread's start.
constexpr std::size_t kPlanInlineBytes = 256 * 1024;

// Made outside the coroutines (GCC 12 mishandles lambdas made inside one); `request` and `row` outlive the call.
std::function<ProgramPlan()> program_planner(const SubmitRequest& request, const json::object& row) {
    return [&request, &row] { return plan_program(request.dataset, request, row); };
}
std::function<StdioPlan()> stdio_planner(const SubmitRequest& request, const json::object& row) {
    return [&request, &row] { return plan_stdio(request, row); };
}

template <typename Result>
awaitable<Result> planned(ServerContext& context, const SubmitRequest& request, std::function<Result()> plan) {
    if (request.completion.size() <= kPlanInlineBytes) co_return plan();
    co_return co_await context.calls.run<Result>(std::move(plan));
}

awaitable<json::object> evaluate_program(ServerContext& context, const SubmitRequest& request, const json::object& row,
                                         std::string client) {
    const ProgramPlan plan = co_await planned(context, request, program_planner(request, row));
    RunCodeRequest run = plan.run;
    RunCodeResponse response = co_await run_code(context, std::move(run), std::move(client));
    if (response.status == "SandboxError") throw sandbox_failed(response);
    co_return program_result(request, plan, plan.run.code, response);
}

awaitable<json::object> evaluate_stdio(ServerContext& context, const SubmitRequest& request, const json::object& row,
                                       std::string client) {
    const StdioPlan plan = co_await planned(context, request, stdio_planner(request, row));
    CaseRuns runs{context, plan, std::move(client), false, 0, std::nullopt, {}, {}, nullptr};
    runs.run_all = request.config.flag("run_all_cases");
    runs.responses.resize(plan.cases.size());
    runs.passed.resize(plan.cases.size());
    co_await run_cases(runs);
    if (runs.error) std::rethrow_exception(runs.error);
    co_return stdio_result(request, runs);
}

}  // namespace

awaitable<json::object> evaluate_submission(ServerContext& context, const SubmitRequest& request, DatasetClass kind,
                                            const json::object& row, std::string client) {
    if (kind == DatasetClass::common_oj) co_return co_await evaluate_stdio(context, request, row, std::move(client));
    co_return co_await evaluate_program(context, request, row, std::move(client));
}

}  // namespace e2beval::server::sandbox_fusion

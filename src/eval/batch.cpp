// Bounded-concurrency batches over Sandbox::async_execute: one io_context, `jobs` sandboxes in
// flight, the next item started as soon as one completes.
#include "e2beval/eval/batch.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "e2beval/core/error.hpp"
#include "compiled_shapes.hpp"

namespace e2beval {

namespace {

// Runs start(index, done) for every index with at most `jobs` started and not yet done.
void run_bounded(std::size_t count, const BatchOptions& options,
                 const std::function<void(boost::asio::io_context&, std::size_t, std::function<void()>)>& start) {
    boost::asio::io_context context;
    const std::size_t jobs = std::max<std::size_t>(options.jobs, 1);
    std::size_t next = 0, done = 0;
    std::function<void()> launch_next = [&] {
        if (next >= count) return;
        const std::size_t index = next++;
        start(context, index, [&, index] {
            ++done;
            if (options.on_done) options.on_done(index, done, count);
            launch_next();
        });
    };
    for (std::size_t i = 0; i < std::min(jobs, count); ++i) launch_next();
    context.run();
}

// A program judged per stdin/stdout case (compiled_shapes.hpp): its executions one after another in the batch's
// slot, the first compiling and the later ones taking its artifact from the compile cache.
struct CaseChain {
    Sandbox& sandbox;
    const Runner& runner;
    boost::asio::io_context& context;
    std::shared_ptr<PreparedEvaluation> prepared;
    const TestSpec& spec;
    Verdict& verdict;
    std::function<void()> done;
    std::vector<ExecResult> results;
};

void run_next_case(std::shared_ptr<CaseChain> chain) {
    const std::size_t at = chain->results.size();
    const auto& prepared = *chain->prepared;
    if (at > 0 && (at > prepared.later_requests.size() || !compiled_shapes::runs_later_cases(chain->results.front()))) {
        chain->verdict = chain->runner.finish(std::move(*chain->prepared), std::move(chain->results), chain->spec);
        chain->done();
        return;
    }
    const ExecRequest& request = at == 0 ? *prepared.request : prepared.later_requests[at - 1];
    chain->sandbox.async_execute(request, boost::asio::bind_executor(chain->context, [chain](boost::system::error_code, ExecResult result) {
                                     chain->results.push_back(std::move(result));
                                     run_next_case(chain);
                                 }));
}

}  // namespace

std::vector<ExecResult> execute_many(Sandbox& sandbox, const std::vector<ExecRequest>& requests,
                                     const BatchOptions& options) {
    std::vector<ExecResult> results(requests.size());
    run_bounded(requests.size(), options, [&](boost::asio::io_context& context, std::size_t index, std::function<void()> done) {
        // A request the sandbox refuses completes too: outcome sandbox_error, the reason in detail.
        sandbox.async_execute(requests[index],
                              boost::asio::bind_executor(context, [&results, index, done](boost::system::error_code, ExecResult result) {
                                  results[index] = std::move(result);
                                  done();
                              }));
    });
    return results;
}

std::vector<Verdict> evaluate_many(Sandbox& sandbox, const RunnerOptions& runner_options,
                                   const std::vector<EvaluationItem>& items, const BatchOptions& options) {
    const Runner runner(sandbox, runner_options);
    std::vector<Verdict> verdicts(items.size());
    run_bounded(items.size(), options, [&](boost::asio::io_context& context, std::size_t index, std::function<void()> done) {
        const auto& item = items[index];
        auto prepared = std::make_shared<PreparedEvaluation>(runner.prepare(item.model_output, item.spec));
        if (!prepared->request) {
            verdicts[index] = std::move(prepared->verdict);
            boost::asio::post(context, done);
            return;
        }
        if (prepared->native_language) {
            run_next_case(std::make_shared<CaseChain>(CaseChain{sandbox, runner, context, prepared, item.spec, verdicts[index], done, {}}));
            return;
        }
        sandbox.async_execute(*prepared->request,
                              boost::asio::bind_executor(context, [&, prepared, index, done](boost::system::error_code, ExecResult result) {
                                  verdicts[index] = runner.finish(std::move(*prepared), std::move(result), item.spec);
                                  done();
                              }));
    });
    return verdicts;
}

}  // namespace e2beval

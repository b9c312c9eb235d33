// Bounded-concurrency batches over Sandbox::async_execute: one io_context, `jobs` sandboxes in
// flight, the next item started as soon as one completes.
#include "e2beval/eval/batch.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "e2beval/core/error.hpp"

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
        sandbox.async_execute(*prepared->request,
                              boost::asio::bind_executor(context, [&, prepared, index, done](boost::system::error_code, ExecResult result) {
                                  verdicts[index] = runner.finish(std::move(*prepared), std::move(result), item.spec);
                                  done();
                              }));
    });
    return verdicts;
}

}  // namespace e2beval

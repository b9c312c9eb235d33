// The backend interface every face uses and every backend implements: one-shot executions and stateful
// sessions, asynchronous in Beast's style (completion tokens, error_code first) with a blocking wrapper each.
// Backends: LocalSandbox (Linux namespaces, the default) and E2bSandbox (E2B's cloud, include/e2beval/e2b/).
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/system/error_code.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/core/types.hpp"
#include "e2beval/session.hpp"

namespace e2beval {

// How an execution's completion reports a failure of the sandbox itself (not of the program, whose failures
// are outcomes): the error code (e2beval::errc, or asio's operation_aborted when cancelled) and, in the
// result, outcome sandbox_error with the reason in `detail`. The blocking wrappers throw it instead.
using ExecSignature = void(boost::system::error_code, ExecResult);
using ExecHandler = boost::asio::any_completion_handler<ExecSignature>;

// A failure of the sandbox itself, as an execution completes with it: the error's errc (sandbox_setup for any
// other exception) and a result with outcome sandbox_error and the message in `detail`.
std::pair<boost::system::error_code, ExecResult> failure_completion(const std::exception& failure);

class Sandbox {
public:
    using executor_type = boost::asio::any_io_executor;

    // `executor` runs the I/O of asynchronous operations whose completion handler has no executor of its
    // own (asio::bind_executor, a coroutine's use_awaitable). It may be empty: then every asynchronous call
    // must bring one, and the blocking wrappers (which use a private io_context) still work.
    explicit Sandbox(executor_type executor = {}) : executor_(std::move(executor)) {}
    Sandbox(const Sandbox&) = delete;
    Sandbox& operator=(const Sandbox&) = delete;
    virtual ~Sandbox() = default;

    executor_type get_executor() const noexcept { return executor_; }
    // "local", "e2b": what make_sandbox() was asked for.
    virtual std::string_view backend() const noexcept = 0;

    // Runs `request` to completion. Completes with (error_code, ExecResult) on the handler's associated
    // executor: the program's failures (exit status, limits) are outcomes with no error; a request the
    // backend refuses or cannot run completes with an error and outcome sandbox_error. Supports per-operation
    // cancellation (asio::bind_cancellation_slot): a cancelled execution is killed with its whole tree and
    // completes with asio::error::operation_aborted.
    template <typename CompletionToken>
    auto async_execute(ExecRequest request, CompletionToken&& token) {
        return boost::asio::async_initiate<CompletionToken, ExecSignature>(
            [this](auto handler, ExecRequest queued) {
                const executor_type io = boost::asio::get_associated_executor(handler, executor_);
                // Nowhere to run the I/O or the completion: say so instead of posting to an empty executor.
                if (!io)
                    throw input_error("async_execute needs an executor: make the sandbox with one, or give the "
                                      "completion handler one (asio::bind_executor, a coroutine's use_awaitable)");
                start_execute(io, std::move(queued), on_handler_executor(io, std::move(handler)));
            },
            token, std::move(request));
    }

    // Blocking: runs the request on a private io_context. Throws input_error for a request the backend
    // refuses, sandbox_error when the sandbox cannot be built; the program's own failures are outcomes.
    ExecResult execute(const ExecRequest& request);

    // A stateful sandbox (E2B's model: code contexts, commands, files). Throws sandbox_error when it cannot
    // start, input_error for bad options. The session lives until kill(), its timeout or the end of this
    // process; this backend object lists it and finds it by id while it lives.
    virtual std::shared_ptr<Session> create_session(const SessionOptions& options = {}) = 0;
    // Sessions like `options` (its limits and isolation) will be wanted: a backend with a pool of ready
    // sessions starts filling it now, in the background, instead of after the first create_session() of this
    // kind. A backend without one ignores it.
    virtual void keep_sessions_ready(const SessionOptions& options) { (void)options; }
    // Executions like `like` (its language, isolation and template) will come, up to `concurrency` at a time:
    // a backend that keeps something ready for them (the local pool's zygotes) starts it now, in the
    // background, and returns without waiting for it, so it gets ready while the caller still prepares (loads
    // a dataset, say). A backend with nothing to prepare, or that cannot, ignores it: the executions still run.
    virtual void prepare_executions(const ExecRequest& like, std::size_t concurrency) {
        (void)like;
        (void)concurrency;
    }
    virtual std::vector<SessionInfo> list_sessions() = 0;
    virtual std::shared_ptr<Session> find_session(const std::string& id) = 0;

protected:
    // What a backend implements: start the execution with its I/O on `io`, and call `handler` exactly once.
    // It may throw for a request it refuses, but only before it takes `handler` (it is left untouched then);
    // execute() and async_execute() turn that into an error completion.
    virtual void initiate_execute(executor_type io, ExecRequest request, ExecHandler& handler) = 0;

private:
    void start_execute(executor_type io, ExecRequest request, ExecHandler handler) noexcept;

    // The handler runs on its own associated executor (Asio's rule for composed operations), which is kept
    // from running out of work until then.
    template <typename Handler>
    static ExecHandler on_handler_executor(const executor_type& io, Handler handler) {
        auto work = boost::asio::prefer(boost::asio::get_associated_executor(handler, io),
                                        boost::asio::execution::outstanding_work.tracked);
        auto slot = boost::asio::get_associated_cancellation_slot(handler);
        // The caller's cancellation slot stays associated, so the backend can kill a cancelled execution.
        return ExecHandler(boost::asio::bind_cancellation_slot(
            slot, [handler = std::move(handler), work = std::move(work)](boost::system::error_code ec, ExecResult result) mutable {
                boost::asio::dispatch(work, [handler = std::move(handler), ec, result = std::move(result)]() mutable {
                    std::move(handler)(ec, std::move(result));
                });
            }));
    }

    executor_type executor_;
};

// Which backend a face wants, by name, with that backend's settings.
struct BackendConfig {
    std::string backend = "local";  // "local" or "e2b"
    // local: the Python that runs the code (empty: $E2BEVAL_PYTHON, else python3) and the warm pool.
    std::string python_executable;
    bool warm_pool = true;
    // e2b: empty or zero fields take the environment's value (E2B_API_KEY, E2B_DOMAIN, E2B_API_URL,
    // E2B_SANDBOX_URL, E2BEVAL_E2B_*; see E2bSettings::from_environment), else E2bSettings' default.
    std::string e2b_api_key;
    std::string e2b_domain;
    std::string e2b_api_url;
    std::string e2b_sandbox_url;
    std::string e2b_template;
    std::string e2b_ca_file;
    std::size_t e2b_max_sandboxes = 0;
    unsigned e2b_uses_per_sandbox = 0;
};

// The backend `config` names. Throws input_error for an unknown backend, naming the known ones, and for an
// e2b backend without an API key.
std::unique_ptr<Sandbox> make_sandbox(const BackendConfig& config = {});

}  // namespace e2beval

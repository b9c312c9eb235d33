// The backend interface's own parts: turning a refused request into an error completion, the blocking
// wrapper, and the factory that picks a backend by name.
#include "e2beval/sandbox.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/local/local_sandbox.hpp"

namespace e2beval {

namespace {

ExecResult failed(std::string detail) {
    ExecResult result;
    result.outcome = Outcome::sandbox_error;
    result.detail = std::move(detail);
    return result;
}

}  // namespace

void Sandbox::start_execute(executor_type io, ExecRequest request, ExecHandler handler) noexcept {
    // A backend that refuses the request throws before it took the handler: complete with the error, never
    // inline (the caller's initiation must return first).
    auto refuse = [&](boost::system::error_code ec, std::string detail) {
        boost::asio::post(io, [handler = std::move(handler), ec, result = failed(std::move(detail))]() mutable {
            std::move(handler)(ec, std::move(result));
        });
    };
    try {
        initiate_execute(io, std::move(request), handler);
    } catch (const error& failure) {
        refuse(make_error_code(failure.code()), failure.what());
    } catch (const std::exception& failure) {
        refuse(make_error_code(errc::sandbox_setup), failure.what());
    }
}

ExecResult Sandbox::execute(const ExecRequest& request) {
    boost::asio::io_context context;
    boost::system::error_code error_code;
    ExecResult result;
    async_execute(request, boost::asio::bind_executor(context, [&](boost::system::error_code ec, ExecResult r) {
                      error_code = ec;
                      result = std::move(r);
                  }));
    context.run();
    if (error_code) {
        if (error_code == boost::system::error_code(make_error_code(errc::invalid_input))) throw input_error(result.detail);
        throw sandbox_error(result.detail.empty() ? error_code.message() : result.detail);
    }
    return result;
}

std::unique_ptr<Sandbox> make_sandbox(const BackendConfig& config) {
    if (config.backend == "local") {
        LocalSandboxOptions options;
        options.python_executable = config.python_executable;
        options.pool.enabled = config.warm_pool;
        return std::make_unique<LocalSandbox>(std::move(options));
    }
    throw input_error("unknown sandbox backend '" + config.backend + "'; the backends are: local");
}

}  // namespace e2beval

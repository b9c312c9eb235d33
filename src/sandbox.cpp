// The backend interface's own parts: turning a refused request into an error completion, and the blocking
// wrapper. (The factory that knows every backend is src/make_sandbox.cpp, above them.)
#include "e2beval/sandbox.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "e2beval/core/error.hpp"

namespace e2beval {

std::pair<boost::system::error_code, ExecResult> failure_completion(const std::exception& failure) {
    const auto* ours = dynamic_cast<const error*>(&failure);
    ExecResult result;
    result.outcome = Outcome::sandbox_error;
    result.detail = failure.what();
    return {boost::system::error_code(make_error_code(ours ? ours->code() : errc::sandbox_setup)), std::move(result)};
}

void Sandbox::start_execute(executor_type io, ExecRequest request, ExecHandler caller_handler) noexcept {
    // Every result says which backend ran it, whatever the backend filled in.
    auto slot = boost::asio::get_associated_cancellation_slot(caller_handler);
    ExecHandler handler(boost::asio::bind_cancellation_slot(
        slot, [inner = std::move(caller_handler), name = std::string(backend())](boost::system::error_code ec, ExecResult result) mutable {
            if (result.backend.empty()) result.backend = name;
            std::move(inner)(ec, std::move(result));
        }));
    // A backend that refuses the request throws before it took the handler: complete with the error, never
    // inline (the caller's initiation must return first).
    try {
        initiate_execute(io, std::move(request), handler);
    } catch (const std::exception& failure) {
        boost::asio::post(io, [handler = std::move(handler), failed = failure_completion(failure)]() mutable {
            std::move(handler)(failed.first, std::move(failed.second));
        });
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


}  // namespace e2beval

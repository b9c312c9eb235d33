// The backend interface's own parts: turning a refused request into an error completion, and the blocking
// wrapper. (The factory that knows every backend is src/make_sandbox.cpp, above them.)
#include "e2beval/sandbox.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "e2beval/core/error.hpp"

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


}  // namespace e2beval

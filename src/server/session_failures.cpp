// Session failures as HTTP statuses.
#include "server/session_failures.hpp"

#include <tuple>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/json_fields.hpp"
#include "e2beval/core/error.hpp"
#include "server/sandbox_store.hpp"

namespace e2beval::server {

namespace json = boost::json;

http::status failure_status(const json::object& failure) {
    const auto kind = string_field(failure, "kind");
    if (kind == "not_found") return http::status::not_found;
    if (kind == "invalid" || kind == "unsupported") return http::status::bad_request;
    if (kind == "timeout") return http::status::bad_gateway;
    return http::status::internal_server_error;
}

std::string failure_message(const json::object& failure) { return string_field(failure, "message"); }

std::string connect_code_of_failure(const json::object& failure) {
    const auto kind = string_field(failure, "kind");
    if (kind == "not_found") return "not_found";
    if (kind == "invalid" || kind == "unsupported") return "invalid_argument";
    if (kind == "timeout") return "unavailable";
    return "internal";
}

Response call_exception_response(std::exception_ptr failure, const std::string& sandbox_id) {
    try {
        std::rethrow_exception(failure);
    } catch (const error& closed) {
        if (closed.code() == errc::session_closed)
            return error_response(http::status::bad_gateway, "The sandbox " + sandbox_id + " was not found: " + closed.what());
        if (closed.code() == errc::invalid_input) return error_response(http::status::bad_request, closed.what());
        return error_response(http::status::internal_server_error, closed.what());
    } catch (const std::exception& other) {
        return error_response(http::status::internal_server_error, other.what());
    }
}

namespace {
UnaryAnswer unary_answer(const std::shared_ptr<ServedSandbox>& sandbox, std::exception_ptr failure, json::object final_event) {
    if (failure) return call_exception_response(failure, sandbox->session->id());
    if (string_field(final_event, "type") == "failure") return error_response(failure_status(final_event), failure_message(final_event));
    return final_event;
}
}  // namespace

UnaryAnswer unary_call(const std::shared_ptr<ServedSandbox>& sandbox, json::object request) {
    try {
        return unary_answer(sandbox, nullptr, sandbox->call(nullptr, std::move(request), {}));
    } catch (...) {
        return unary_answer(sandbox, std::current_exception(), {});
    }
}

boost::asio::awaitable<UnaryAnswer> await_unary_call(std::shared_ptr<ServedSandbox> sandbox, json::object request) {
    std::exception_ptr failure;
    json::object final_event;
    try {
        std::tie(failure, final_event) =
            co_await sandbox->session->async_call(std::move(request), {}, boost::asio::as_tuple(boost::asio::use_awaitable));
    } catch (...) {
        failure = std::current_exception();  // refused before it was sent (the session is closed)
    }
    co_return unary_answer(sandbox, failure, std::move(final_event));
}

}  // namespace e2beval::server

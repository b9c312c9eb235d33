// Session failures as HTTP statuses.
#include "server/session_failures.hpp"

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

UnaryAnswer unary_call(const std::shared_ptr<ServedSandbox>& sandbox, json::object request) {
    try {
        auto final_event = sandbox->call(nullptr, std::move(request), {});
        if (string_field(final_event, "type") == "failure") return error_response(failure_status(final_event), failure_message(final_event));
        return final_event;
    } catch (...) {
        return call_exception_response(std::current_exception(), sandbox->session->id());
    }
}

}  // namespace e2beval::server

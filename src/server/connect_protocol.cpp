// Connect envelopes and errors.
#include "server/connect_protocol.hpp"

#include <boost/json.hpp>

#include "server/request_json.hpp"

namespace e2beval::server {

namespace json = boost::json;

namespace {
std::string framed(std::uint8_t flags, const std::string& payload) {
    std::string envelope;
    envelope.reserve(5 + payload.size());
    envelope += static_cast<char>(flags);
    const auto size = static_cast<std::uint32_t>(payload.size());
    for (int shift = 24; shift >= 0; shift -= 8) envelope += static_cast<char>((size >> shift) & 0xff);
    envelope += payload;
    return envelope;
}

http::status connect_http_status(std::string_view code) {
    if (code == "invalid_argument" || code == "failed_precondition" || code == "out_of_range") return http::status::bad_request;
    if (code == "unauthenticated") return http::status::unauthorized;
    if (code == "permission_denied") return http::status::forbidden;
    if (code == "not_found") return http::status::not_found;
    if (code == "already_exists" || code == "aborted") return http::status::conflict;
    if (code == "resource_exhausted") return http::status::too_many_requests;
    if (code == "unimplemented") return http::status::not_implemented;
    if (code == "unavailable") return http::status::service_unavailable;
    if (code == "deadline_exceeded") return http::status::gateway_timeout;
    return http::status::internal_server_error;
}
}  // namespace

std::string connect_envelope(const json::object& message) { return framed(0, json::serialize(message)); }

std::string connect_end_of_stream(std::optional<std::pair<std::string, std::string>> error) {
    json::object end;
    if (error) end["error"] = json::object{{"code", error->first}, {"message", error->second}};
    return framed(2, json::serialize(end));
}

std::variant<json::object, std::string> connect_request_message(const Request& request) {
    const auto content_type = request[http::field::content_type];
    const std::string_view body = request.body();
    if (content_type.starts_with("application/connect+")) {
        if (body.size() < 5) return std::string("the request holds no Connect envelope");
        if (static_cast<std::uint8_t>(body[0]) & 0x01) return std::string("compressed Connect envelopes are not accepted");
        std::uint32_t size = 0;
        for (int i = 1; i <= 4; ++i) size = (size << 8) | static_cast<std::uint8_t>(body[static_cast<std::size_t>(i)]);
        if (body.size() - 5 < size) return std::string("the request's Connect envelope is cut short");
        return parse_body_object(body.substr(5, size));
    }
    return parse_body_object(body);
}

Response connect_error(std::string_view code, std::string_view message) {
    return json_response(connect_http_status(code), json::object{{"code", code}, {"message", message}});
}

}  // namespace e2beval::server

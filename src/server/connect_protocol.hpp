// The Connect protocol's JSON framing as envd speaks it: a server-streaming request and each response message
// are envelopes (1 flag byte, 4-byte big-endian length, JSON); the stream ends with an envelope flagged 0x02
// whose JSON may hold {"error": {"code", "message"}}. Unary calls are plain JSON; their errors are non-200
// statuses with {"code", "message"}.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <boost/json/object.hpp>

#include "server/http_exchange.hpp"

namespace e2beval::server {

std::string connect_envelope(const boost::json::object& message);
std::string connect_end_of_stream(std::optional<std::pair<std::string, std::string>> error = std::nullopt);  // code, message

// The message of a streaming request's body (its first envelope), or of a unary request's JSON body.
// A message saying what is wrong otherwise.
std::variant<boost::json::object, std::string> connect_request_message(const Request& request);

// A unary call's error answer; `code` is a Connect code ("invalid_argument", "not_found", ...).
Response connect_error(std::string_view code, std::string_view message);

}  // namespace e2beval::server

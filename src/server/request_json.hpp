// Reading the JSON bodies of requests: an object or a message saying what is wrong with it, and typed fields.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <boost/json/object.hpp>

#include "core/json_fields.hpp"  // string_field, which the request handlers read fields with

namespace e2beval::server {

// The body as a JSON object; an empty body is an empty object. Else a message for a 400.
std::variant<boost::json::object, std::string> parse_body_object(std::string_view body);

// A map of strings (metadata, envVars); a message naming `what` when it is not one.
std::variant<std::map<std::string, std::string>, std::string> string_map_field(const boost::json::object& object,
                                                                               std::string_view key, std::string_view what);

// RFC 3339 in UTC with milliseconds, as E2B's API writes times.
std::string rfc3339(std::chrono::system_clock::time_point time);

// An RFC 3339 date-time as the SDKs send it (`2026-11-27T14:17:28.169000+00:00`, `...Z`; a fraction of any
// length; a `+` that query decoding turned into a space is taken as `+`); nothing when the text is not one.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

}  // namespace e2beval::server

// JSON bodies and RFC 3339 times for the server's handlers.
#include "server/request_json.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

#include <boost/json/parse.hpp>

namespace e2beval::server {

namespace json = boost::json;

std::variant<json::object, std::string> parse_body_object(std::string_view body) {
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return json::object{};
    boost::system::error_code ec;
    auto value = json::parse(body, ec);
    if (ec) return std::string("the request body is not valid JSON: ") + ec.message();
    if (!value.is_object()) return std::string("the request body must be a JSON object");
    return std::move(value.as_object());
}

std::variant<std::map<std::string, std::string>, std::string> string_map_field(const json::object& object,
                                                                               std::string_view key, std::string_view what) {
    std::map<std::string, std::string> map;
    const auto* field = object.if_contains(key);
    if (!field || field->is_null()) return map;
    if (!field->is_object()) return std::string(what) + " must be an object of strings";
    for (const auto& [name, value] : field->as_object()) {
        if (!value.is_string()) return std::string(what) + " values must be strings; '" + std::string(name) + "' is not";
        map.emplace(std::string(name), std::string(value.as_string()));
    }
    return map;
}

std::string string_of(const json::object& object, std::string_view key) {
    if (const auto* value = object.if_contains(key); value && value->is_string()) return std::string(value->as_string());
    return {};
}

std::string rfc3339(std::chrono::system_clock::time_point time) {
    const auto seconds = std::chrono::time_point_cast<std::chrono::seconds>(time);
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(time - seconds).count();
    const std::time_t since_epoch = std::chrono::system_clock::to_time_t(seconds);
    std::tm utc{};
    ::gmtime_r(&since_epoch, &utc);
    char text[96];  // room for any int the fields could hold, which GCC's -Wformat-truncation counts on
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                  utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(millis));
    return text;
}

}  // namespace e2beval::server

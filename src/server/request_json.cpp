// JSON bodies and RFC 3339 times for the server's handlers.
#include "server/request_json.hpp"

#include <chrono>
#include <cstdint>
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

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
    std::size_t at = 0;
    const auto number = [&](std::size_t digits, int& out) {
        if (at + digits > text.size()) return false;
        out = 0;
        for (std::size_t i = 0; i < digits; ++i, ++at) {
            if (text[at] < '0' || text[at] > '9') return false;
            out = out * 10 + (text[at] - '0');
        }
        return true;
    };
    const auto expect = [&](std::string_view any_of) {
        if (at >= text.size() || any_of.find(text[at]) == std::string_view::npos) return false;
        ++at;
        return true;
    };
    int year, month, day, hour, minute, second;
    if (!number(4, year) || !expect("-") || !number(2, month) || !expect("-") || !number(2, day) || !expect("Tt ") ||
        !number(2, hour) || !expect(":") || !number(2, minute) || !expect(":") || !number(2, second)) {
        return std::nullopt;
    }
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
    std::chrono::nanoseconds fraction{0};
    if (at < text.size() && text[at] == '.') {
        ++at;
        std::int64_t scale = 100'000'000;
        const std::size_t first = at;
        for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10) {
            fraction += std::chrono::nanoseconds((text[at] - '0') * scale);
        }
        if (at == first) return std::nullopt;
    }
    std::chrono::minutes offset{0};
    if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
        ++at;
    } else {
        if (at >= text.size()) return std::nullopt;
        const int sign = text[at] == '-' ? -1 : 1;
        int offset_hours, offset_minutes;
        if (!expect("+- ") || !number(2, offset_hours) || !expect(":") || !number(2, offset_minutes)) return std::nullopt;
        offset = std::chrono::minutes(sign * (offset_hours * 60 + offset_minutes));
    }
    if (at != text.size()) return std::nullopt;
    const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                                           std::chrono::day(static_cast<unsigned>(day))};
    if (!date.ok()) return std::nullopt;
    return std::chrono::sys_days(date) + std::chrono::hours(hour) + std::chrono::minutes(minute) +
           std::chrono::seconds(second) + std::chrono::duration_cast<std::chrono::system_clock::duration>(fraction) -
           offset;
}

}  // namespace e2beval::server

// JSON values as Python source (src/core/python_literal.hpp).
#include "core/python_literal.hpp"

#include <boost/json.hpp>
#include <charconv>

#include "e2beval/core/text.hpp"

namespace e2beval {

namespace json = boost::json;

std::string python_string_literal(std::string_view text) {
    const bool double_quotes = text.find('\'') != std::string_view::npos && text.find('"') == std::string_view::npos;
    return quoted_literal(text, double_quotes ? '"' : '\'');
}

std::string python_literal(const json::value& value) {
    switch (value.kind()) {
        case json::kind::null: return "None";
        case json::kind::bool_: return value.get_bool() ? "True" : "False";
        case json::kind::int64: return std::to_string(value.get_int64());
        case json::kind::uint64: return std::to_string(value.get_uint64());
        case json::kind::double_: {
            char buffer[64];
            const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value.get_double());
            return ec == std::errc() ? std::string(buffer, end) : std::to_string(value.get_double());
        }
        case json::kind::string: return python_string_literal(value.get_string());
        case json::kind::array: {
            std::string out = "[";
            for (const auto& item : value.get_array()) out += (out.size() > 1 ? ", " : "") + python_literal(item);
            return out + "]";
        }
        case json::kind::object: {
            std::string out = "{";
            for (const auto& [key, item] : value.get_object())
                out += (out.size() > 1 ? ", " : "") + python_string_literal(key) + ": " + python_literal(item);
            return out + "}";
        }
    }
    return "None";
}

}  // namespace e2beval

// Reading a test's vars (src/eval/shapes/vars_fields.hpp).
#include "eval/shapes/vars_fields.hpp"

#include <boost/json.hpp>
#include <regex>

#include "core/python_literal.hpp"
#include "e2beval/core/error.hpp"

namespace e2beval::shapes {

namespace json = boost::json;

const json::value* field(const json::object& object, std::initializer_list<std::string_view> names) {
    for (const auto name : names)
        if (const auto* found = object.if_contains(name); found && !found->is_null()) return found;
    return nullptr;
}

std::string required_string(const json::value& value, std::string_view name) {
    if (!value.is_string()) throw input_error("vars." + std::string(name) + " must be a string, got " + json::serialize(value));
    return std::string(value.get_string());
}

std::string identifier(const json::value& value, std::string_view name) {
    auto text = required_string(value, name);
    if (!std::regex_match(text, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
        throw input_error("vars." + std::string(name) + " '" + text + "' is not a Python identifier");
    return text;
}

std::string text_or_literal(const json::value& value) {
    return value.is_string() ? std::string(value.get_string()) : python_literal(value);
}

std::string stream_text(const json::value& value, const std::string& where) {
    if (value.is_string()) return std::string(value.get_string());
    if (value.is_number()) return json::serialize(value);
    throw input_error(where + " must be a string, got " + json::serialize(value));
}

}  // namespace e2beval::shapes

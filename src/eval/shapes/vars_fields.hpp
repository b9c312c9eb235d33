// Reading a test's vars (promptfoo's YAML, as JSON): the first of a field's spellings that is set, and its value
// as the type a shape needs, or an input_error that names the field.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <boost/json/fwd.hpp>

namespace e2beval::shapes {

// The first of `names` present and not null in `object`, or nullptr (snake_case and camelCase spellings).
const boost::json::value* field(const boost::json::object& object, std::initializer_list<std::string_view> names);

// The string `value`; else input_error "vars.NAME must be a string, got ...".
std::string required_string(const boost::json::value& value, std::string_view name);

// A Python identifier (a function to call); else input_error naming vars.NAME.
std::string identifier(const boost::json::value& value, std::string_view name);

// A string as it is, any other JSON value as its Python literal. Both test fields read this way:
// - `test_input`: the tutorial pastes it between the call's parentheses, so a top-level string is source text
//   ("'racecar'", "1, 2"); numbers and lists from YAML become their literal;
// - the expected output, compared with str(result): 120, True, [1, 2], 'olleh' -> olleh.
std::string text_or_literal(const boost::json::value& value);

// stdin and stdout of a stdin/stdout case are text; YAML may hand them over as numbers. Else input_error at `where`.
std::string stream_text(const boost::json::value& value, const std::string& where);

}  // namespace e2beval::shapes

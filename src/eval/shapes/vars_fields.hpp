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

// The tutorial pastes `test_input` between the call's parentheses, so a top-level string is source text
// ("'racecar'", "1, 2"); other JSON values (numbers, lists from YAML) become their Python literal.
std::string input_source(const boost::json::value& value);

// Expected outputs are compared with str(result): 120, True, [1, 2], 'olleh' -> olleh.
std::string expected_text(const boost::json::value& value);

// stdin and stdout of a stdin/stdout case are text; YAML may hand them over as numbers. Else input_error at `where`.
std::string stream_text(const boost::json::value& value, const std::string& where);

}  // namespace e2beval::shapes

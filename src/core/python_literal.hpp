// JSON values written as Python source, as Python's repr() writes what json.loads() makes of them: the
// Runner puts a test's values into its Python harness (and compares str(result) with an expected list), and
// an assertion's config shows a refused value in the YAML user's words.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/fwd.hpp>

namespace e2beval {

// repr() of a str: single quotes unless the text holds a ' and no " (then double quotes); \n, \r, \t, \\, the
// quote and other control bytes escaped; everything else (UTF-8 included) as it is.
std::string python_string_literal(std::string_view text);

// repr() of the value: None, True, False, 5, 0.5, 1e-07, 'text', [1, 2], {'a': 1}. A double is its shortest
// round-trip form as std::to_chars writes it (5.0 -> 5), as the Runner has always passed YAML's numbers on.
std::string python_literal(const boost::json::value& value);

}  // namespace e2beval

// Reading one field of a JSON object that may be missing or mistyped (an agent's event, a server request, a
// template's manifest, a harness's report): where absence and a wrong type mean the same thing, the empty value.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/fwd.hpp>

namespace e2beval {

// The string at `key`; "" when there is none or it is not a string.
std::string string_field(const boost::json::object& object, std::string_view key);

}  // namespace e2beval

// One field of a JSON object, read leniently (src/core/json_fields.hpp).
#include "core/json_fields.hpp"

#include <boost/json/object.hpp>

namespace e2beval {

std::string string_field(const boost::json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

}  // namespace e2beval

// Small text helpers the dataset API's files share: Python's notion of whitespace and strip(), and a row's string
// field.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "core/json_fields.hpp"  // a row's string field: e2beval::string_field

namespace e2beval::server::sandbox_fusion {

// The ASCII characters Python's str.strip() and the regex class \s take as whitespace.
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

inline std::string_view strip(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

}  // namespace e2beval::server::sandbox_fusion

// Internal: the TypeScript-only part of the scanner (rules/typescript.cpp); the JavaScript rules read the rest.
#pragma once

#include <span>
#include <string_view>

#include "analysis/scan_support.hpp"

namespace e2beval::detail {

// /// <reference path="..."/> and <amd-dependency path="..."/> that name files outside the workspace.
void scan_typescript_directives(std::string_view code, FindingSink& sink);

}  // namespace e2beval::detail

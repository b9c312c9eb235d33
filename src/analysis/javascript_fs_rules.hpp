// Internal: the scanner's file-access rules for JavaScript and TypeScript (rules/javascript_fs.cpp): the paths
// that fs calls are given. The rest of the JavaScript rules are in javascript_rules.cpp.
#pragma once

#include <vector>

#include "analysis/js_tokenizer.hpp"
#include "analysis/scan_support.hpp"

namespace e2beval::detail {

// js-fs-system-path, js-fs-parent-path, js-fs-absolute-path, js-fs-computed-path (and js-obfuscated-code for a
// path decoded at run time) on the path arguments of calls on fs, however the code bound fs.
void scan_javascript_file_access(const std::vector<JsToken>& tokens, FindingSink& sink);

}  // namespace e2beval::detail

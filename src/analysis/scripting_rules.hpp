// Internal: the scanner's rule sets for Python (python_rules.cpp), JavaScript (javascript_rules.cpp) and bash
// (bash_rules.cpp); the C family's and TypeScript's are in c_family_rules.hpp and typescript_rules.hpp.
#pragma once

#include <string_view>

#include "analysis/rule_catalog.hpp"

#include "analysis/scan_support.hpp"

namespace e2beval::detail {

// Findings for `code` through `sink`; `depth` counts the strings it was nested in (see scan_nested).
void scan_python(std::string_view code, FindingSink& sink, int depth);
void scan_javascript(std::string_view code, FindingSink& sink, int depth);
void scan_bash(std::string_view code, FindingSink& sink, int depth);

// What importing a module means, in a module table (Python's: rules/python_modules.cpp; JavaScript's:
// javascript_rules.cpp). Findings say "imports MODULE: WHAT" (Python) or "loads MODULE: WHAT" (JavaScript).
struct ImportRule {
    std::string_view module;  // a top-level module or package; it covers what is under it
    RuleId rule;
    std::string_view what;
    bool network;  // the message adds that the sandbox has no network
};

// Python's row for `module` ("urllib.request" is urllib's), or nullptr.
const ImportRule* python_import_rule(std::string_view module);

// What reaching a member of a dangerous module means (os.system, sys.modules, importlib.import_module, ...),
// by an attribute chain through any alias, by getattr or by `from MODULE import MEMBER`.
// Findings say "uses WRITTEN: WHAT" ("calls" for `verb`) or "imports MEMBER from MODULE: WHAT".
struct PythonMemberRule {
    enum class Match { exact, prefix, any };
    std::string_view module;
    std::string_view member;
    Match match;
    RuleId rule;
    RuleId rule_when_imported;  // {}: `rule`; os.system imported by name is import-os-system
    std::string_view what;
    std::string_view verb = "uses";
    bool network = false;
};

// The first row for MODULE.MEMBER (posix and nt read as os, __builtins__ as builtins), or nullptr.
const PythonMemberRule* python_member_rule(std::string_view module, std::string_view member);

// The JavaScript module table (javascript_rules.cpp): the rule `require`/`import` of a module raises, by its first
// path component without a "node:" prefix ("fs/promises" is fs's), or {}.
RuleId javascript_module_rule(std::string_view module);

}  // namespace e2beval::detail

// SafetyScanner: the policy's presets and lists, the rule listing, and which language's rules read a piece of
// code. The rules are one file per language, on tokens so words inside strings and comments never match:
// python_rules.cpp, javascript_rules.cpp, bash_rules.cpp, and rules/ for the C family and TypeScript; their ids
// and severities are in rule_catalog.hpp. The findings are advice shown before the sandbox runs the code; the
// sandbox stays the security boundary.
#include "e2beval/analysis/safety.hpp"

#include <algorithm>
#include <optional>

#include "analysis/c_family_rules.hpp"
#include "analysis/rule_catalog.hpp"
#include "analysis/scan_support.hpp"
#include "analysis/scripting_rules.hpp"
#include "analysis/typescript_rules.hpp"
#include "e2beval/core/error.hpp"

namespace e2beval {

std::string_view to_string(Severity severity) noexcept {
    switch (severity) {
        case Severity::info: return "info";
        case Severity::warning: return "warning";
        case Severity::block: return "block";
    }
    return "block";
}

std::string_view to_string(PolicyPreset preset) noexcept {
    switch (preset) {
        case PolicyPreset::tutorial: return "tutorial";
        case PolicyPreset::standard: return "standard";
        case PolicyPreset::strict: return "strict";
    }
    return "standard";
}

std::optional<PolicyPreset> policy_preset_from_string(std::string_view name) noexcept {
    if (name == "tutorial") return PolicyPreset::tutorial;
    if (name == "standard") return PolicyPreset::standard;
    if (name == "strict") return PolicyPreset::strict;
    return std::nullopt;
}

namespace {

using detail::FindingSink;
using detail::Rule;
using detail::severity_of;

template <typename Fn>
void for_each_rule(Fn&& fn) {
    for (const auto table : detail::kRuleTables)
        for (const auto& rule : table) fn(rule);
}

void check_rule_ids(const std::vector<std::string>& ids, std::string_view list_name) {
    for (const auto& id : ids) {
        if (detail::find_rule(id)) continue;
        std::string known;
        for_each_rule([&](const Rule& rule) { known += (known.empty() ? "" : ", ") + std::string(rule.id); });
        throw input_error("unknown safety rule \"" + id + "\" in " + std::string(list_name) + "; known rules: " + known);
    }
}

}  // namespace

namespace detail {

void scan_code(std::string_view code, Language language, FindingSink& sink, int depth) {
    switch (language) {
        case Language::python: scan_python(code, sink, depth); break;
        case Language::javascript: scan_javascript(code, sink, depth); break;
        case Language::bash: scan_bash(code, sink, depth); break;
        case Language::c:
        case Language::cpp: scan_c_family(code, c_rules(), sink); break;
        case Language::go: scan_c_family(code, go_rules(), sink); break;
        case Language::rust: scan_c_family(code, rust_rules(), sink); break;
        case Language::java: scan_c_family(code, java_rules(), sink); break;
        case Language::typescript:
            scan_javascript(code, sink, depth);
            scan_typescript_directives(code, sink);
            break;
    }
}

}  // namespace detail

SafetyScanner::SafetyScanner(Policy policy) : policy_(std::move(policy)) {
    check_rule_ids(policy_.allow_rules, "allow_rules");
    check_rule_ids(policy_.deny_rules, "deny_rules");
}

std::vector<Finding> SafetyScanner::scan(std::string_view code, Language language) const {
    FindingSink sink(policy_);
    detail::scan_code(code, language, sink, 0);
    return std::move(sink).take();
}

bool SafetyScanner::blocks(const std::vector<Finding>& findings) noexcept {
    return std::any_of(findings.begin(), findings.end(),
                       [](const Finding& finding) { return finding.severity == Severity::block; });
}

std::vector<RuleInfo> SafetyScanner::rules() {
    std::vector<RuleInfo> result;
    for_each_rule([&](const Rule& rule) {
        RuleInfo info;
        info.id = rule.id;
        info.language = rule.language;
        info.tutorial = severity_of(rule.levels[0]);
        info.standard = severity_of(rule.levels[1]);
        info.strict = severity_of(rule.levels[2]);
        info.summary = rule.summary;
        result.push_back(info);
    });
    return result;
}

}  // namespace e2beval

// JSON forms of the analysis layer's values: extractions, findings, scanner policies and rules.
#include "e2beval/analysis/json.hpp"

#include <boost/json.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval {

namespace json = boost::json;

json::object to_json(const Finding& finding) {
    return {{"rule", finding.rule},
            {"severity", to_string(finding.severity)},
            {"line", finding.line},
            {"column", finding.column},
            {"message", finding.message}};
}

json::value to_json(const std::vector<Finding>& findings) {
    json::array array;
    for (const auto& finding : findings) array.push_back(to_json(finding));
    return array;
}

json::object to_json(const Extraction& extraction) {
    json::array blocks;
    for (const auto index : extraction.blocks_used) blocks.push_back(index);
    return {{"code", extraction.code},
            {"language", to_string(extraction.language)},
            {"method", to_string(extraction.method)},
            {"blocks_used", std::move(blocks)},
            {"explanation", extraction.explanation}};
}

Policy policy_from_json(const json::value& value) {
    Policy policy;
    const auto preset_of = [](const json::value& name) {
        const auto preset = name.is_string() ? policy_preset_from_string(name.get_string()) : std::nullopt;
        if (!preset) throw input_error("scanner policy must be tutorial, standard or strict, got " + json::serialize(name));
        return *preset;
    };
    if (!value.is_object()) {
        policy.preset = preset_of(value);
        return policy;
    }
    const auto list = [](const json::value& items, const std::string& key) {
        std::vector<std::string> names;
        if (items.is_string()) return std::vector<std::string>{std::string(items.get_string())};
        if (!items.is_array()) throw input_error("policy '" + key + "' must be a list of names");
        for (const auto& item : items.get_array()) {
            if (!item.is_string()) throw input_error("policy '" + key + "' must hold names (strings)");
            names.emplace_back(item.get_string());
        }
        return names;
    };
    for (const auto& [key, item] : value.get_object()) {
        const std::string name(key);
        if (name == "preset") policy.preset = preset_of(item);
        else if (name == "allow_rules") policy.allow_rules = list(item, name);
        else if (name == "deny_rules") policy.deny_rules = list(item, name);
        else if (name == "allow_modules") policy.allow_modules = list(item, name);
        else if (name == "deny_modules") policy.deny_modules = list(item, name);
        else if (name == "allow_calls") policy.allow_calls = list(item, name);
        else if (name == "deny_calls") policy.deny_calls = list(item, name);
        else throw input_error("unknown policy setting '" + name +
                               "'; valid settings are: preset, allow_rules, deny_rules, allow_modules, deny_modules, "
                               "allow_calls, deny_calls");
    }
    return policy;
}

json::object to_json(const RuleInfo& rule) {
    const auto severity = [](const std::optional<Severity>& s) { return s ? json::value(to_string(*s)) : json::value(nullptr); };
    return {{"id", rule.id}, {"language", to_string(rule.language)}, {"tutorial", severity(rule.tutorial)},
            {"standard", severity(rule.standard)}, {"strict", severity(rule.strict)}, {"summary", rule.summary}};
}

}  // namespace e2beval

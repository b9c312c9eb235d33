// A promptfoo assertion's or provider's `config:`, checked once (include/e2beval/eval/assertion_options.hpp). The
// shape of each value is checked here, in the YAML user's words; what a value means (a limit's minimum, a seccomp
// mode, a policy preset, a compare mode) is left to the core's own parsers, so no rule is written twice.
#include "e2beval/eval/assertion_options.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include "e2beval/analysis/json.hpp"
#include "e2beval/core/json.hpp"
#include "core/python_literal.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

std::string joined(const std::vector<std::string_view>& names) {
    std::string text;
    for (const auto name : names) text += (text.empty() ? "" : ", ") + std::string(name);
    return text;
}

std::string_view kind_of(const json::value& value) {
    switch (value.kind()) {
        case json::kind::null: return "null";
        case json::kind::bool_: return "true/false";
        case json::kind::string: return "a string";
        case json::kind::array: return "a list";
        case json::kind::object: return "a mapping";
        default: return "a number";
    }
}

[[noreturn]] void refuse(const std::string& message) { throw config_error(message); }

// Every key of `mapping` not in `names`, sorted, as "unknown WHAT(s) a, b; valid VALID: names".
void reject_unknown_keys(const json::object& mapping, const std::vector<std::string_view>& names, std::string_view what,
                         std::string_view valid) {
    std::vector<std::string> unknown;
    for (const auto& [key, item] : mapping)
        if (std::find(names.begin(), names.end(), std::string_view(key)) == names.end()) unknown.emplace_back(key);
    if (unknown.empty()) return;
    std::sort(unknown.begin(), unknown.end());
    std::string list;
    for (const auto& key : unknown) list += (list.empty() ? "" : ", ") + key;
    refuse("unknown " + std::string(what) + "(s) " + list + "; valid " + std::string(valid) + ": " + joined(names));
}

const json::object& mapping(std::string_view key, const json::value& value, const std::vector<std::string_view>& names,
                            std::string_view example, std::string_view what, std::string_view valid) {
    if (!value.is_object())
        refuse(std::string(key) + " must be a mapping such as " + std::string(example) + ", got " + shown_config_value(value) +
               "; valid " + std::string(valid) + ": " + joined(names));
    reject_unknown_keys(value.get_object(), names, what, valid);
    return value.get_object();
}

bool is_number(const json::value& value) { return value.is_number(); }  // JSON's true/false are not numbers

// A core parser's refusal, as a config error with the core's message (it names the setting and what is valid).
template <typename Parse>
auto parsed(Parse&& parse) {
    try {
        return parse();
    } catch (const config_error&) {
        throw;
    } catch (const input_error& refusal) {
        refuse(refusal.what());
    }
}

bool flag(std::string_view key, const json::value& value) {
    if (!value.is_bool()) refuse(std::string(key) + " must be true or false, got " + shown_config_value(value));
    return value.get_bool();
}

std::string text(std::string_view key, const json::value& value) {
    if (!value.is_string() || value.get_string().empty())
        refuse(std::string(key) + " must be a non-empty string, got " + shown_config_value(value));
    return std::string(value.get_string());
}

Limits limits_of(const json::value& value, const Limits& base) {
    const auto& limits = mapping("limits", value, limit_keys(), "{wall_time_s: 5, memory_mb: 256}", "limit", "limits");
    for (const auto& [name, amount] : limits)
        if (!is_number(amount) || amount.to_number<double>() < 0)
            refuse("limits." + std::string(name) + " must be a number of at least 0, got " + shown_config_value(amount));
    return parsed([&] { return limits_from_json(limits, base); });
}

CompareMode compare_of(const json::value& value) {
    if (!(value.is_string() && !value.get_string().empty())) {
        if (!value.is_object())
            refuse("compare must be a mode name (exact, trimmed, whitespace, numeric, regex, json) or a mapping "
                   "{mode, tolerance, relative_tolerance, pattern}, got " + shown_config_value(value));
        const auto& settings = value.get_object();
        reject_unknown_keys(settings, compare_keys(), "compare setting", "settings");
        if (const auto* mode = settings.if_contains("mode"); mode && !(mode->is_string() && !mode->get_string().empty()))
            refuse("compare.mode must be a mode name, got " + shown_config_value(*mode));
        for (const auto name : {"tolerance", "relative_tolerance"})
            if (const auto* amount = settings.if_contains(name); amount && (!is_number(*amount) || amount->to_number<double>() < 0))
                refuse("compare." + std::string(name) + " must be a number of at least 0, got " + shown_config_value(*amount));
        if (const auto* pattern = settings.if_contains("pattern"); pattern && !pattern->is_string())
            refuse("compare.pattern must be a regular expression (a string), got " + shown_config_value(*pattern));
    }
    return parsed([&] { return compare_mode_from_json(value); });
}

}  // namespace

std::string shown_config_value(const json::value& value) {
    return python_literal(value) + " (" + std::string(kind_of(value)) + ")";
}

const std::vector<std::string_view>& assertion_option_keys() {
    static const std::vector<std::string_view> keys = {"backend", "limits",    "timeout",       "isolation", "policy",
                                                       "scan",    "language",  "compare",       "keep_main", "keep_examples",
                                                       "python",  "metrics",   "results_dir",   "template",
                                                       "expect_results"};
    return keys;
}

const std::vector<std::string_view>& promptfoo_provider_keys() {
    static const std::vector<std::string_view> keys = {"basePath", "pythonExecutable", "workers", "timeout"};
    return keys;
}

AssertionOptions assertion_options_from_json(const json::value& config) {
    AssertionOptions options;
    if (config.is_null()) return options;
    if (!config.is_object())
        refuse("config must be a mapping of settings, got " + shown_config_value(config) +
               "; valid keys: " + joined(assertion_option_keys()));
    reject_unknown_keys(config.get_object(), assertion_option_keys(), "key", "keys");

    auto& runner = options.runner;
    std::optional<double> timeout_s;
    std::string backend = "local";
    for (const auto& [key, value] : config.get_object()) {
        if (key == "backend") {
            if (!(value.is_string() && (value.get_string() == "local" || value.get_string() == "e2b")))
                refuse("backend must be 'local' or 'e2b', got " + shown_config_value(value));
            backend = std::string(value.get_string());
        } else if (key == "limits") {
            runner.limits = limits_of(value, runner.limits);
        } else if (key == "timeout") {
            if (!is_number(value) || value.to_number<double>() <= 0)
                refuse("timeout must be a number of seconds greater than 0, got " + shown_config_value(value));
            timeout_s = value.to_number<double>();
        } else if (key == "isolation") {
            const auto& settings =
                mapping(key, value, isolation_keys(), "{seccomp: kill}", "isolation setting", "settings");
            runner.isolation = parsed([&] { return isolation_from_json(settings, runner.isolation); });
        } else if (key == "policy") {
            if (!value.is_string() && !value.is_object())
                refuse("policy must be a preset name (tutorial, standard, strict) or a mapping such as "
                       "{preset: strict, allow_modules: [numpy]}, got " + shown_config_value(value));
            runner.policy = parsed([&] { return policy_from_json(value); });
        } else if (key == "language") {
            // The language's own name only: a config is written once and read by people, unlike a fence tag.
            const auto language = value.is_string() ? language_from_tag(value.get_string()) : std::nullopt;
            if (!language || to_string(*language) != std::string_view(value.get_string()))
                refuse("language must be one of python, javascript, bash, c, cpp, go, rust, java, typescript, got " +
                       shown_config_value(value));
            options.language = language;
        } else if (key == "compare") {
            options.compare = compare_of(value);
        } else if (key == "scan") {
            runner.scan = flag(key, value);
        } else if (key == "keep_main") {
            runner.keep_main = flag(key, value);
        } else if (key == "keep_examples") {
            runner.keep_examples = flag(key, value);
        } else if (key == "metrics") {
            options.metrics = flag(key, value);
        } else if (key == "python") {
            options.python_executable = text(key, value);
        } else if (key == "results_dir") {
            options.results_dir = text(key, value);
        } else if (key == "template") {
            runner.template_name = text(key, value);  // an unknown one fails the test, listing the known ones
        } else if (key == "expect_results") {
            options.expect_results = parsed([&] { return expected_results_from_json(value); });
        }
    }
    options.backend = backend;
    // `timeout` is the wall-time limit, whichever of the two was written first.
    if (timeout_s) runner.limits = parsed([&] { return limits_from_json(json::object{{"wall_time_s", *timeout_s}}, runner.limits); });
    return options;
}

AssertionOptions provider_options_from_json(const json::value& config) {
    if (!config.is_object()) return assertion_options_from_json(config);
    json::object own = config.get_object();
    for (const auto key : promptfoo_provider_keys()) own.erase(key);
    // A provider returns what the code printed and did; checking its rich results is the assertion's job.
    if (own.contains("expect_results"))
        refuse("expect_results is an assertion setting (a type: python assertion with e2beval.promptfoo.get_assert); "
               "a provider's config does not take it");
    return assertion_options_from_json(own);
}

MetricsSettings metrics_settings_from_json(const json::value& config) {
    MetricsSettings settings;
    if (!config.is_object()) return settings;
    if (const auto* metrics = config.get_object().if_contains("metrics"); metrics && metrics->is_bool())
        settings.metrics = metrics->get_bool();
    if (const auto* directory = config.get_object().if_contains("results_dir");
        directory && directory->is_string() && !directory->get_string().empty())
        settings.results_dir = std::string(directory->get_string());
    return settings;
}

json::object vars_with_defaults(json::object vars, const AssertionOptions& options) {
    if (options.language && !vars.contains("language")) vars["language"] = to_string(*options.language);
    if (options.compare && !vars.contains("compare")) vars["compare"] = to_json(*options.compare);
    return vars;
}

AnswerOptions answer_options(const AssertionOptions& options) {
    AnswerOptions answer;
    answer.extract.language = options.language.value_or(Language::python);
    answer.extract.keep_main = options.runner.keep_main;
    answer.extract.keep_examples = options.runner.keep_examples;
    answer.policy = options.runner.policy;
    answer.scan = options.runner.scan;
    answer.limits = options.runner.limits;
    answer.isolation = options.runner.isolation;
    answer.template_name = options.runner.template_name;
    return answer;
}

}  // namespace e2beval

// The settings of a promptfoo assertion's or provider's `config:` (docs/promptfoo.md), read and checked once, here:
// the Python package hands the mapping over as it is and keeps no key list or per-key check of its own.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/core/error.hpp"
#include "e2beval/core/types.hpp"
#include "e2beval/eval/answer.hpp"
#include "e2beval/eval/compare.hpp"
#include "e2beval/eval/result_check.hpp"
#include "e2beval/eval/runner.hpp"

namespace e2beval {

// A `config:` e2beval cannot use; the message says what to change, in the YAML user's terms
// ("scan must be true or false, got 'yes' (a string)").
class config_error : public input_error {
public:
    using input_error::input_error;
};

struct AssertionOptions {
    // policy, scan, keep_main, keep_examples, limits (`timeout` folded into wall_time), isolation. Its
    // `compare` stays empty: the config's compare is a default a test's own `compare` wins over (below).
    RunnerOptions runner;
    std::optional<Language> language;     // the language of tests whose vars set none
    std::optional<CompareMode> compare;   // the comparison of tests whose vars set none
    std::string python_executable;        // empty: $E2BEVAL_PYTHON, else the default
    bool metrics = true;                  // write a metrics record per test
    std::string results_dir;              // empty: $PROMPTFOO_RESULTS_DIR, else .promptfoo_results
    std::vector<ExpectedResult> expect_results;  // empty: no rich-result check (eval/result_check.hpp)
    std::string backend = "local";        // "local" or "e2b" (E2B's cloud, settings from the environment)
};

// The keys an assertion's `config:` takes, in the order error messages list them.
const std::vector<std::string_view>& assertion_option_keys();

// Keys promptfoo itself reads from a Python provider's `config:` (and `basePath`, which it adds): a provider's
// config may hold them besides e2beval's, and they are promptfoo's (`timeout` there is its worker timeout in
// milliseconds, not e2beval's).
const std::vector<std::string_view>& promptfoo_provider_keys();

// An assertion's `config:` (null: every default). Throws config_error naming the first problem: not a mapping,
// unknown keys (all of them, with the valid ones), a value of the wrong kind, a value the core's parsers refuse
// (limits, isolation, policy, compare).
AssertionOptions assertion_options_from_json(const boost::json::value& config);

// A provider's `config:` (promptfoo's call_api target): the same keys, and promptfoo's own are left to it.
AssertionOptions provider_options_from_json(const boost::json::value& config);

// From a `config:` that may have failed its checks, the two settings that say where its error row goes
// (`metrics`, `results_dir`), each only when it is valid itself: a test whose config is wrong is still recorded,
// where the user asked.
struct MetricsSettings {
    bool metrics = true;
    std::string results_dir;
};
MetricsSettings metrics_settings_from_json(const boost::json::value& config);

// The test's vars with the config's defaults for what they leave unset (`language`, `compare`).
boost::json::object vars_with_defaults(boost::json::object vars, const AssertionOptions& options);

// The pipeline options of a provider (call_api): the answer's language is the config's, else Python.
AnswerOptions answer_options(const AssertionOptions& options);

// A config value as the user wrote it, with its YAML kind: `'yes' (a string)`, `5 (a number)`, `True (true/false)`.
std::string shown_config_value(const boost::json::value& value);

}  // namespace e2beval

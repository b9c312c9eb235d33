// A promptfoo `config:` read into AssertionOptions (no sandbox): defaults, what each key sets, the messages a
// wrong value gets, and the provider's keys that are promptfoo's own.
#include "e2beval/eval/assertion_options.hpp"

#include <doctest/doctest.h>

#include <boost/json.hpp>

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_assertion_options {

using namespace e2beval;

namespace {

AssertionOptions read(const char* json_text) { return assertion_options_from_json(boost::json::parse(json_text)); }

std::string refusal(const char* json_text) {
    try {
        read(json_text);
    } catch (const config_error& failure) {
        return failure.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("assertion options: no config is every default") {
    const auto options = assertion_options_from_json(nullptr);
    CHECK(options.runner.scan);
    CHECK(options.runner.limits.wall_time == Limits{}.wall_time);
    CHECK_FALSE(options.language);
    CHECK_FALSE(options.compare);
    CHECK(options.metrics);
    CHECK(options.results_dir.empty());
}

TEST_CASE("assertion options: each key sets its setting, and timeout is the wall-time limit") {
    const auto options = read(R"({"timeout": 3, "limits": {"wall_time_s": 9, "memory_mb": 128}, "scan": false,
        "isolation": {"seccomp": "kill"}, "language": "javascript", "compare": {"mode": "numeric", "tolerance": 0.5},
        "policy": "strict", "keep_main": true, "python": "/usr/bin/python3", "metrics": false, "results_dir": "out"})");
    CHECK(options.runner.limits.wall_time == std::chrono::seconds(3));
    CHECK(options.runner.limits.memory_bytes == 128 * kMiB);
    CHECK_FALSE(options.runner.scan);
    CHECK(options.runner.isolation.seccomp == SeccompMode::kill);
    CHECK(options.language == Language::javascript);
    REQUIRE(options.compare);
    CHECK(options.compare->kind == CompareKind::numeric);
    CHECK(options.runner.policy.preset == PolicyPreset::strict);
    CHECK(options.runner.keep_main);
    CHECK(options.python_executable == "/usr/bin/python3");
    CHECK_FALSE(options.metrics);
    CHECK(options.results_dir == "out");
    // The config's compare is a default for the vars, never an override of a test's own.
    CHECK_FALSE(options.runner.compare);
    const auto vars = vars_with_defaults(boost::json::object{{"compare", "exact"}}, options);
    CHECK(vars.at("compare") == "exact");
    CHECK(vars.at("language") == "javascript");
}

TEST_CASE("assertion options: a wrong value is refused in the YAML user's words") {
    CHECK(refusal(R"({"scan": "yes"})") == "scan must be true or false, got 'yes' (a string)");
    CHECK(refusal(R"({"timeout": 0})") == "timeout must be a number of seconds greater than 0, got 0 (a number)");
    CHECK(refusal(R"({"timout": 1, "polcy": "x"})").starts_with("unknown key(s) polcy, timout; valid keys: backend, limits"));
    CHECK(refusal(R"({"results_dir": ["a", "it's"]})") ==
          R"(results_dir must be a non-empty string, got ['a', "it's"] (a list))");
    CHECK(refusal(R"({"limits": {"memory_mb": 0}})") == "limit 'memory_mb' must be positive");  // the core's parser
    CHECK(refusal(R"({"language": "js"})") == "language must be one of python, javascript, bash, c, cpp, go, rust, java, typescript, got 'js' (a string)");
    CHECK(refusal(R"({"backend": "e2b"})") == "(accepted)");  // E2B's settings come from the environment
    CHECK(refusal(R"({"metrics": null})") == "metrics must be true or false, got None (null)");
}

TEST_CASE("assertion options: a provider's config leaves promptfoo's own keys to promptfoo") {
    const auto options = provider_options_from_json(
        boost::json::parse(R"({"basePath": ".", "pythonExecutable": "python3", "workers": 2, "timeout": 1, "scan": false})"));
    CHECK_FALSE(options.runner.scan);
    CHECK(options.runner.limits.wall_time == Limits{}.wall_time);  // promptfoo's timeout (ms) is not e2beval's
    CHECK_THROWS_AS(read(R"({"workers": 2})"), config_error);      // but an assertion has no such key
}

TEST_CASE("assertion options: the metrics settings of a config that failed its checks") {
    const auto settings = metrics_settings_from_json(boost::json::parse(R"({"timeout": "soon", "metrics": false, "results_dir": 3})"));
    CHECK_FALSE(settings.metrics);
    CHECK(settings.results_dir.empty());
}

}  // namespace e2beval_test_assertion_options

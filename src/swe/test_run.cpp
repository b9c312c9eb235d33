// Running an instance's tests and trusting only what the framework itself reported. The code under test runs
// in the test process and can print anything ("PASSED tests/test_x.py::test_y") and exit 0; SWE-bench's
// harness cross-checks the log with the exit code. Here pytest also loads a small plugin that records each
// test's outcome as pytest decided it and writes it, at the end of the session, to a file in a directory named
// with a per-run random nonce: grading reads that file; the log is parsed only to find forged lines. A run
// whose report is missing did not finish (the code ended the process): every test counts as missing.
// This guards against forged output, not against code that sets out to find and rewrite e2beval's own report
// (it runs as the same user in the same sandbox), which is the limit SWE-bench has too.
#include "swe/test_run.hpp"

#include "e2beval/swe/patch.hpp"

#include <algorithm>
#include <regex>

#include <boost/json/parse.hpp>

namespace json = boost::json;

namespace e2beval::swe {

namespace {

// pytest's outcome per node id, in the words of its -rA summary, written once at the end of the session.
constexpr const char* kPytestPlugin = R"PY(# e2beval: records pytest's own outcome of every test (docs/swe.md)
import json as _json, os as _os
_REPORT = @REPORT@
_results = {}
def pytest_runtest_logreport(report):
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if xfail:
            _results[report.nodeid] = "XFAIL" if report.skipped else "PASSED"
        else:
            _results[report.nodeid] = {"passed": "PASSED", "failed": "FAILED", "skipped": "SKIPPED"}[report.outcome]
    elif report.failed:
        _results[report.nodeid] = "ERROR"
    elif report.skipped and report.when == "setup":
        _results[report.nodeid] = "XFAIL" if xfail else "SKIPPED"
def pytest_collectreport(report):
    if report.failed:
        _results[report.nodeid] = "ERROR"
def pytest_sessionfinish(session, exitstatus):
    with open(_REPORT + ".part", "w") as out:
        _json.dump({"exitstatus": int(exitstatus), "tests": _results}, out)
    _os.replace(_REPORT + ".part", _REPORT)
)PY";

std::string python_string(const std::string& text) {
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '\\' || c == '"') quoted += '\\';
        quoted += c;
    }
    return quoted + "\"";
}

// "tests/test_x.py::TestA::test_b[1]" → "tests/test_x.py"; "test_b (tests.test_x.TestA)" → "tests.test_x".
std::string directive_of(const std::string& test, const std::string& framework) {
    if (framework == "unittest") {
        static const std::regex unittest_id(R"(^\w+ \(([\w.]+)\.\w+(?:\.\w+)?\)$)");
        std::smatch match;
        if (std::regex_match(test, match, unittest_id)) return match[1].str();
        return {};
    }
    const auto split = test.find("::");
    return split == std::string::npos ? std::string() : test.substr(0, split);
}

std::optional<TestStatus> status_named(std::string_view name) {
    for (auto status : {TestStatus::passed, TestStatus::failed, TestStatus::skipped, TestStatus::error, TestStatus::xfail})
        if (to_string(status) == name) return status;
    return std::nullopt;
}

bool any_failed(const TestStatusMap& statuses) {
    return std::any_of(statuses.begin(), statuses.end(),
                       [](const auto& entry) { return entry.second == TestStatus::failed || entry.second == TestStatus::error; });
}

TestRunResults read_pytest(const std::string& log, int exit_code, const std::optional<std::string>& report) {
    TestRunResults results;
    if (!report) {
        results.integrity.push_back("pytest's own report was not written: the test run did not finish (the code under test "
                                    "ended the process, crashed it, or the run timed out); every test counts as missing");
        return results;
    }
    boost::system::error_code ec;
    const auto parsed = json::parse(*report, ec);
    const auto* tests = !ec && parsed.is_object() ? parsed.as_object().if_contains("tests") : nullptr;
    if (!tests || !tests->is_object()) {
        results.integrity.push_back("pytest's report is not what e2beval's plugin writes: it was tampered with; every test counts as missing");
        return results;
    }
    results.suite_completed = true;
    for (const auto& [id, status] : tests->as_object())
        if (status.is_string())
            if (auto known = status_named(status.as_string())) results.statuses[std::string(id)] = *known;
    // The log's result lines, against pytest's own: a line that claims a pass pytest did not record is forged.
    for (const auto& [id, claimed] : parser_for("pytest").parse(log)) {
        if (claimed != TestStatus::passed) continue;
        const auto found = results.statuses.find(id);
        if (found == results.statuses.end() || found->second != TestStatus::passed)
            results.integrity.push_back("the log says " + id + " PASSED but pytest recorded " +
                                        (found == results.statuses.end() ? std::string("no such test") : std::string(to_string(found->second))) +
                                        ": the line was printed by the code under test");
    }
    const auto& report_exit = parsed.as_object().if_contains("exitstatus");
    if (report_exit && report_exit->is_int64() && report_exit->as_int64() != exit_code)
        results.integrity.push_back("the test command exited " + std::to_string(exit_code) + " but pytest ended with status " +
                                    std::to_string(report_exit->as_int64()));
    if (exit_code == 0 && any_failed(results.statuses))
        results.integrity.push_back("the test command exited 0 although tests failed");
    return results;
}

// unittest has no report of its own here: the log is read, and trusted only when its summary ("Ran N tests",
// then OK or FAILED) is there and agrees with the exit code and the result lines.
TestRunResults read_unittest(const std::string& log, int exit_code) {
    TestRunResults results;
    results.statuses = parser_for("unittest").parse(log);
    static const std::regex summary(R"((^|\n)Ran \d+ tests? in [0-9.]+s\s*\n\s*\n(OK|FAILED))");
    std::smatch match;
    if (!std::regex_search(log, match, summary)) {
        results.integrity.push_back("unittest's summary (\"Ran N tests\") is missing: the test run did not finish; every test counts as missing");
        results.statuses.clear();
        return results;
    }
    results.suite_completed = true;
    const bool said_ok = match[2].str() == "OK";
    if (said_ok != (exit_code == 0) || said_ok == any_failed(results.statuses)) {
        results.integrity.push_back("unittest's summary, its result lines and the exit code (" + std::to_string(exit_code) +
                                    ") disagree: the log is not trusted; every test counts as missing");
        results.statuses.clear();
    }
    return results;
}

}  // namespace

std::string shell_quote(const std::string& text) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::vector<std::string> test_directives(const Instance& instance) {
    if (!instance.test_directives.empty()) return instance.test_directives;
    std::vector<std::string> directives;
    for (const auto* tests : {&instance.fail_to_pass, &instance.pass_to_pass})
        for (const auto& test : *tests) {
            auto directive = directive_of(test, instance.test_framework);
            if (!directive.empty() && std::find(directives.begin(), directives.end(), directive) == directives.end())
                directives.push_back(std::move(directive));
        }
    return directives;
}

std::vector<std::string> test_files(const Instance& instance) {
    std::vector<std::string> files;
    auto add = [&](std::string path) {
        if (!path.empty() && path != "/dev/null" && std::find(files.begin(), files.end(), path) == files.end()) files.push_back(std::move(path));
    };
    for (auto directive : test_directives(instance)) {
        if (instance.test_framework == "unittest" && directive.find('/') == std::string::npos) {
            std::replace(directive.begin(), directive.end(), '.', '/');
            directive += ".py";
        }
        add(directive);
    }
    for (const auto& file : patched_files(instance.test_patch)) {
        add(file.old_path);
        add(file.new_path);
    }
    return files;
}

TestRunPlan plan_test_run(const Instance& instance, const std::string& private_directory) {
    TestRunPlan plan;
    // `python` and the tests' tools are the sandbox's own: its backend puts its Python's directory (or the
    // template's virtualenv) first on PATH, under the path it has inside the sandbox.
    std::string command = "export PYTHONDONTWRITEBYTECODE=1\n";
    std::string run = instance.test_cmd;
    for (const auto& directive : test_directives(instance)) run += " " + shell_quote(directive);
    if (instance.test_framework == "pytest") {
        const auto plugin_module = "e2beval_swe_report";
        plan.report_path = private_directory + "/report.json";
        std::string plugin = kPytestPlugin;
        plugin.replace(plugin.find("@REPORT@"), 8, python_string(*plan.report_path));
        plan.files.emplace_back(private_directory + "/" + plugin_module + ".py", plugin);
        // The plugin is found through PYTHONPATH for this one command; the repository's own conftest still loads.
        command += "PYTHONPATH=" + shell_quote(private_directory) + "${PYTHONPATH:+:$PYTHONPATH} " + run + " -p " + plugin_module;
    } else {
        command += run;
    }
    plan.command = command + " 2>&1";
    return plan;
}

TestRunResults read_test_run(const Instance& instance, const std::string& log, int exit_code, const std::optional<std::string>& report) {
    if (instance.test_framework == "pytest") return read_pytest(log, exit_code, report);
    if (instance.test_framework == "unittest") return read_unittest(log, exit_code);
    // A registered parser: the log is all there is; the exit code must agree with it.
    TestRunResults results;
    results.statuses = parser_for(instance.test_framework).parse(log);
    results.suite_completed = !results.statuses.empty();
    if ((exit_code == 0) == any_failed(results.statuses))
        results.integrity.push_back("the exit code (" + std::to_string(exit_code) + ") disagrees with the result lines");
    return results;
}

}  // namespace e2beval::swe

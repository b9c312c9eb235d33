// The test step of a SWE evaluation: the command that runs the instance's tests in the sandbox, and the
// reading of what it produced — per-test statuses, and whether the suite really ran (the framework's own
// report, at a path chosen per run, against the log, which the code under test can forge).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "e2beval/swe/instance.hpp"
#include "e2beval/swe/test_log.hpp"

namespace e2beval::swe {

// `text` as one word for bash, in single quotes.
std::string shell_quote(const std::string& text);

// The test files or modules to run: the instance's test_directives, else those of its test ids.
std::vector<std::string> test_directives(const Instance& instance);
// The repository-relative files of those tests and of the test patch (what `protect_tests` guards).
std::vector<std::string> test_files(const Instance& instance);

struct TestRunPlan {
    std::string command;                  // bash, run in the repository
    std::optional<std::string> report_path;  // where the framework's report will be (pytest), if any
    std::vector<std::pair<std::string, std::string>> files;  // to write before running: path, content
};

// `private_directory` is a fresh directory named with a random nonce.
TestRunPlan plan_test_run(const Instance& instance, const std::string& private_directory);

struct TestRunResults {
    TestStatusMap statuses;  // what grading uses: the framework's report where there is one, else the log
    bool suite_completed = false;
    std::vector<std::string> integrity;  // each disagreement found
};

// `report` is the report file's content (nullopt when it was not written).
TestRunResults read_test_run(const Instance& instance, const std::string& log, int exit_code, const std::optional<std::string>& report);

}  // namespace e2beval::swe

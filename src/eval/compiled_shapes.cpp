// Tests run as programs of their own language (src/eval/compiled_shapes.hpp): stdin/stdout cases compiled once
// and run per case, and MultiPL-E's `tests` appended to the answer.
#include "compiled_shapes.hpp"

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>

#include "case_judging.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/language.hpp"
#include "e2beval/eval/assembly.hpp"
#include "e2beval/eval/multipl_e.hpp"
#include "eval/shapes/shape.hpp"

namespace e2beval::compiled_shapes {

namespace json = boost::json;

namespace {

using case_judging::clip;

bool compiles(Language language) noexcept { return describe(language).compiled(); }

// MultiPL-E's stop tokens per language (its rows' `stop_tokens`), for a continuation when the vars give none.
std::vector<std::string> default_stop_tokens(Language language) {
    switch (language) {
        case Language::go: return {"\nfunc", "struct", "\n// "};
        case Language::java: return {"\n    }\n"};
        case Language::javascript: return {"\nfunction ", "\n/*", "\n//", "\nconsole.log"};
        case Language::typescript: return {"\nfunction ", "\n/*", "\n//", "\nclass"};
        default: return {"\n}"};  // cpp, rust, bash
    }
}

// The test's `tests` as one piece of code: a list's items one after another.
std::string tests_text(const TestSpec& spec) {
    std::string text;
    for (const auto& snippet : spec.assert_snippets) text += snippet + (snippet.ends_with('\n') ? "" : "\n");
    return text;
}

MultiplETask task_of(const TestSpec& spec, Language language) {
    MultiplETask task;
    task.task_id = "the test";
    task.language = language;
    task.prompt = spec.prompt;
    // promptfoo trims vars: a prompt that lost its final newline gets it back, so a continuation starts on a new line
    // exactly as in MultiPL-E's rows.
    if (!task.prompt.empty() && task.prompt.back() != '\n') task.prompt += '\n';
    task.tests = tests_text(spec);
    task.stop_tokens = spec.stop_tokens.value_or(default_stop_tokens(language));
    return task;
}

// The first lines of a failed program's stderr (or Go test's stdout) that say why: an assertion, an exception,
// a panic. Rust's "note: run with RUST_BACKTRACE" lines say nothing about the answer.
std::string failure_excerpt(std::string_view text) {
    std::string excerpt;
    std::size_t lines = 0;
    while (!text.empty() && lines < 3) {
        const auto end = text.find('\n');
        auto line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string_view::npos) continue;
        line = line.substr(first);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
        if (line.starts_with("note: ")) continue;
        excerpt += (excerpt.empty() ? "" : " | ") + std::string(line);
        ++lines;
    }
    return clip(excerpt, 400);
}

bool compile_failed(const ExecResult& result) { return result.compile && result.compile->outcome != Outcome::ok; }

// Why a program that did not end as wanted failed: the outcome and its detail, then what it wrote to stderr.
std::string run_failure(const ExecResult& result) {
    std::string reason = "Execution error: ";
    if (result.outcome == Outcome::exit_nonzero) reason += "exit status " + std::to_string(result.exit_code);
    else reason += std::string(to_string(result.outcome)) + (result.detail.empty() ? "" : ": " + clip(result.detail));
    const auto said = failure_excerpt(result.stderr_data);
    return said.empty() ? reason : reason + " (stderr: " + said + ")";
}

double milliseconds(std::chrono::nanoseconds duration) { return std::chrono::duration<double, std::milli>(duration).count(); }

std::string with_note(std::string reason, const std::string& note) {
    return note.empty() ? reason : reason + " (" + note + ")";
}

}  // namespace

std::vector<std::string> stop_tokens_of(const json::value& value) {
    if (value.is_string()) {
        // promptfoo expands a var that is a list into one test per item: there, the list is written as JSON text
        // ('["\n}", "\nfunc"]'), or one token is given as a string.
        boost::system::error_code ec;
        const auto parsed = json::parse(value.get_string(), ec);
        if (!ec && parsed.is_array()) return stop_tokens_of(parsed);
        return {std::string(value.get_string())};
    }
    if (!value.is_array())
        throw input_error("vars.stop_tokens must be a list of strings (or one string, or a list as JSON text), got " + json::serialize(value));
    std::vector<std::string> tokens;
    for (const auto& token : value.get_array()) {
        if (!token.is_string()) throw input_error("vars.stop_tokens must hold strings only, got " + json::serialize(token));
        tokens.emplace_back(token.get_string());
    }
    return tokens;
}

void check_spec(const TestSpec& spec, Language language) {
    if (spec.shape != TestShape::asserts || language == Language::python || spec.prompt.empty()) return;
    if (!is_multipl_e_language(language))
        throw input_error("vars.prompt with " + std::string(to_string(language)) +
                          " tests: MultiPL-E has no " + std::string(describe(language).display_name) +
                          " programs to assemble (cpp, go, java, javascript, rust, bash, typescript); give the tests without "
                          "a prompt, and they are appended to the answer's code");
    try {
        multipl_e_entry_point(task_of(spec, language));
    } catch (const input_error&) {
        throw input_error("vars.prompt does not end with a function's signature, so the function the tests call is "
                          "unknown; MultiPL-E's prompt ends with the signature of the function the answer completes");
    }
}

bool runs_natively(const TestSpec& spec, Language language) noexcept {
    return language != Language::python && shapes::of(spec.shape).runs_natively_in_other_languages();
}

std::optional<Language> language_of_fence(const TestSpec& spec, Language fence) noexcept {
    if (!compiles(fence) || spec.setup) return std::nullopt;
    return shapes::of(spec.shape).runs_natively_in_other_languages() ? std::optional(fence) : std::nullopt;
}

void plan(PreparedEvaluation& prepared, std::string_view model_output, const Extraction& extraction,
          const TestSpec& spec, Language language, const RunnerOptions& options) {
    Verdict& verdict = prepared.verdict;
    std::string source = extraction.code;
    if (spec.shape == TestShape::asserts) {
        if (spec.prompt.empty()) {
            source = extraction.code + "\n" + tests_text(spec);
            prepared.program_note = "the tests appended to " + extraction.explanation;
        } else {
            try {
                check_spec(spec, language);  // a language the fence chose was not checked with the vars
                // The answer as MultiPL-E's evaluation takes it: assembly chooses the fenced block itself.
                // promptfoo (and chat front ends) trim the answer: a continuation that ended with Java's stop token
                // "\n    }\n" arrives as "...\n    }", which the token no longer matches. The newline comes back.
                std::string answer(model_output);
                if (!answer.empty() && answer.back() != '\n') answer += '\n';
                auto program = assemble_multipl_e(task_of(spec, language), answer, AnswerKind::automatic);
                source = std::move(program.source);
                prepared.program_note = "assembled as MultiPL-E's " + std::string(to_string(program.kind)) + ": " +
                                        program.explanation;
            } catch (const input_error& failure) {
                verdict.reason = std::string("Invalid test: ") + failure.what();
                return;
            }
        }
    }
    // 2. Scan what will run (the tests are part of it: a program is judged as a whole).
    AnswerOptions screening;
    screening.policy = options.policy;
    screening.scan = options.scan;
    AnswerRun screened;
    screened.extraction = extraction;
    screened.extraction->code = source;
    screened.extraction->language = language;
    const bool may_run = scan_answer(screened, screening);
    verdict.findings = std::move(screened.findings);
    if (!may_run) {
        verdict.status = screened.status;
        verdict.reason = std::move(screened.reason);
        return;
    }
    // 3. One request per stdin/stdout case, the first of which compiles; one for the tests.
    ExecRequest request;
    request.language = language;
    request.code = std::move(source);
    request.limits = options.limits;
    request.isolation = options.isolation;
    request.template_name = options.template_name;
    prepared.native_language = language;
    if (spec.shape == TestShape::stdio) {
        for (std::size_t i = 0; i < spec.stdio_cases.size(); ++i) {
            ExecRequest one = request;
            one.stdin_data = spec.stdio_cases[i].stdin_data;
            if (i == 0) prepared.request = std::move(one);
            else prepared.later_requests.push_back(std::move(one));
        }
    } else {
        prepared.request = std::move(request);
    }
}

bool runs_later_cases(const ExecResult& first) noexcept {
    if (first.compile) return first.compile->outcome == Outcome::ok;
    return first.outcome != Outcome::sandbox_error;
}

std::vector<ExecResult> execute_all(Sandbox& sandbox, const PreparedEvaluation& prepared) {
    const auto run = [&sandbox](const ExecRequest& request) {
        try {
            return sandbox.execute(request);
        } catch (const sandbox_error& refusal) {
            ExecResult refused;
            refused.outcome = Outcome::sandbox_error;
            refused.detail = refusal.what();
            return refused;
        }
    };
    std::vector<ExecResult> results;
    results.push_back(run(*prepared.request));
    if (!runs_later_cases(results.front())) return results;
    for (const auto& request : prepared.later_requests) results.push_back(run(request));
    return results;
}

Verdict judge(PreparedEvaluation prepared, std::vector<ExecResult> results, const TestSpec& spec, const CompareMode& mode) {
    Verdict verdict = std::move(prepared.verdict);
    const Language language = *prepared.native_language;
    const auto& note = prepared.language_note;
    const ExecResult& first = results.front();
    if (first.compile) {
        CompileStage stage;
        stage.result = *first.compile;
        for (const auto& result : results)
            if (result.compile) (result.compile->cached ? stage.cache_hits : stage.compiler_runs) += 1;
        verdict.compile = std::move(stage);
    }
    const auto outline = [](std::string input, std::string expected) {
        CaseResult result;
        result.input = std::move(input);
        result.expected = std::move(expected);
        return result;
    };
    if (spec.shape == TestShape::stdio)
        for (const auto& stdio_case : spec.stdio_cases) verdict.cases.push_back(outline(stdio_case.stdin_data, stdio_case.expected_stdout));
    else
        verdict.cases.push_back(outline(tests_text(spec), "exit status 0"));

    std::optional<std::size_t> first_failure;
    for (std::size_t i = 0; i < verdict.cases.size(); ++i) {
        auto& result = verdict.cases[i];
        if (i >= results.size()) {
            // Not run: the first case did not compile, or the sandbox refused it; the same reason holds for all.
            result.outcome = verdict.cases.front().outcome;
            result.reason = verdict.cases.front().reason;
            continue;
        }
        const ExecResult& exec = results[i];
        result.outcome = std::string(to_string(exec.outcome));
        result.actual = exec.stdout_data;
        if (compile_failed(exec)) {
            result.reason = with_note(case_judging::compile_reason(*exec.compile), note);
        } else if (spec.shape == TestShape::stdio) {
            result.run_ms = milliseconds(exec.wall_time);
            if (exec.outcome == Outcome::ok) case_judging::judge_output(result, spec.stdio_cases[i].expected_stdout, mode);
            else result.reason = with_note(run_failure(exec), note);
        } else {
            result.run_ms = milliseconds(exec.wall_time);
            const auto multipl_e = judge_multipl_e(language, exec);
            result.passed = multipl_e.pass;
            result.stdout_data = clip(exec.stdout_data, 4096);
            if (multipl_e.pass) {
                result.reason = "Passed: the program with the tests exited 0";
            } else if (exec.outcome == Outcome::ok) {  // Go: `go test` printed FAIL
                result.outcome = multipl_e.outcome;
                result.reason = with_note("Execution error: " + multipl_e.detail + " (" + failure_excerpt(exec.stdout_data) + ")", note);
            } else {
                const auto said = language == Language::go ? failure_excerpt(exec.stdout_data) : std::string();
                result.reason = with_note(run_failure(exec) + (said.empty() ? "" : " (stdout: " + said + ")"), note);
            }
            if (!result.passed && !prepared.program_note.empty()) result.reason += " [" + prepared.program_note + "]";
        }
        if (!result.passed && !first_failure) first_failure = i;
        if (spec.shape != TestShape::stdio || mode.kind != CompareKind::exact) result.actual = trim_whitespace(result.actual);
    }
    // The execution a face shows: the first that failed (its outcome is the test's: a timeout, a compile error),
    // else the first.
    const std::size_t shown = first_failure && *first_failure < results.size() ? *first_failure : 0;
    verdict.exec = std::move(results[shown]);
    case_judging::summarize_cases(verdict);
    verdict.status = classify_answer(verdict.findings, verdict.exec);
    return verdict;
}

std::vector<std::string> detail_lines(const Verdict& verdict) {
    std::vector<std::string> lines;
    const bool native = !verdict.cases.empty() && !verdict.cases.front().outcome.empty();
    if (!native && !verdict.compile) return lines;
    char text[64];
    if (verdict.compile) {
        const auto& stage = *verdict.compile;
        std::snprintf(text, sizeof text, "%.0f ms", milliseconds(stage.result.wall_time));
        lines.push_back("compile: " + std::string(to_string(stage.result.outcome)) + " in " + text +
                        (stage.result.toolchain.empty() ? "" : " (" + stage.result.toolchain + ")") + ", " +
                        std::to_string(stage.compiler_runs) + " compiler run" + (stage.compiler_runs == 1 ? "" : "s") + ", " +
                        std::to_string(stage.cache_hits) + " from the compile cache");
    }
    if (!native || verdict.cases.size() < 2) return lines;
    for (std::size_t i = 0; i < verdict.cases.size(); ++i) {
        const auto& result = verdict.cases[i];
        std::string time = "-";
        if (result.run_ms) {
            std::snprintf(text, sizeof text, "%.0f ms", *result.run_ms);
            time = text;
        }
        lines.push_back("case " + std::to_string(i + 1) + ": " + (result.passed ? "PASS" : "FAIL") + "  " + result.outcome +
                        "  " + time + "  " + result.reason);
    }
    return lines;
}

}  // namespace e2beval::compiled_shapes

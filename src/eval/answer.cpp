// The pipeline for an answer with no test: extract, scan, execute, classify (include/e2beval/eval/answer.hpp).
#include "e2beval/eval/answer.hpp"

#include "e2beval/core/error.hpp"

namespace e2beval {

namespace {

std::string describe_blocking(const std::vector<Finding>& findings) {
    std::string out;
    for (const auto& finding : findings) {
        if (finding.severity != Severity::block) continue;
        if (!out.empty()) out += "; ";
        out += finding.rule + " at line " + std::to_string(finding.line) + ":" + std::to_string(finding.column) + " (" +
               finding.message + ")";
    }
    return out;
}

}  // namespace

std::string_view to_string(AnswerStatus status) noexcept {
    switch (status) {
        case AnswerStatus::not_run: return "not_run";
        case AnswerStatus::blocked: return "blocked";
        case AnswerStatus::contained: return "contained";
        case AnswerStatus::ran: return "ran";
        case AnswerStatus::error: return "error";
    }
    return "error";
}

bool scan_answer(AnswerRun& run, const AnswerOptions& options) {
    if (!options.scan || !run.extraction) return static_cast<bool>(run.extraction);
    run.findings = SafetyScanner(options.policy).scan(run.extraction->code, run.extraction->language);
    if (!SafetyScanner::blocks(run.findings)) return true;
    run.status = AnswerStatus::blocked;
    run.reason = "Unsafe pattern detected in generated code: " + describe_blocking(run.findings);
    return false;
}

AnswerStatus classify_answer(const std::vector<Finding>& findings, const std::optional<ExecResult>& exec) {
    if (SafetyScanner::blocks(findings)) return AnswerStatus::blocked;
    if (!exec) return AnswerStatus::not_run;
    switch (exec->outcome) {
        case Outcome::sandbox_error: return AnswerStatus::error;
        case Outcome::ok:
        case Outcome::exit_nonzero:
            // Denied system calls mean the sandbox stopped something, even when the program then went on.
            return exec->denied_syscalls.empty() ? AnswerStatus::ran : AnswerStatus::contained;
        case Outcome::compile_error: return AnswerStatus::ran;  // judged: the compiler rejected it
        default: return AnswerStatus::contained;  // signaled, a limit, a seccomp kill, cancelled
    }
}

AnswerRun run_extracted(Sandbox& sandbox, Extraction extraction, const AnswerOptions& options) {
    AnswerRun run;
    run.extraction = std::move(extraction);
    if (!scan_answer(run, options)) return run;
    ExecRequest request;
    request.language = run.extraction->language;
    request.code = run.extraction->code;
    request.limits = options.limits;
    request.isolation = options.isolation;
    request.template_name = options.template_name;
    run.exec = sandbox.execute(request);
    run.status = classify_answer(run.findings, run.exec);
    return run;
}

AnswerRun run_answer(Sandbox& sandbox, std::string_view model_output, const AnswerOptions& options) {
    Extraction extraction;
    try {
        extraction = CodeExtractor(options.extract).extract(model_output);
    } catch (const extraction_error& failure) {
        AnswerRun run;
        run.reason = std::string("No code to run: ") + failure.what();
        return run;
    } catch (const input_error& failure) {  // invalid UTF-8, a NUL byte: the model's output, not the caller's
        AnswerRun run;
        run.reason = std::string("No code to run: ") + failure.what();
        return run;
    }
    return run_extracted(sandbox, std::move(extraction), options);
}

}  // namespace e2beval

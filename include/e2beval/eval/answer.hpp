// A model's answer run with no test: the extract -> scan -> execute -> classify pipeline every face shares (the
// Runner's first steps, promptfoo's call_api red-team target, `e2beval redteam`), with one meaning of
// "blocked", "contained" and "ran" for all of them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/analysis/extract.hpp"
#include "e2beval/analysis/safety.hpp"
#include "e2beval/core/types.hpp"
#include "e2beval/sandbox.hpp"

namespace e2beval {

// What became of an answer's code.
enum class AnswerStatus {
    not_run,    // nothing to run: no code in the answer (or the test could not use it)
    blocked,    // the scanner refused it; it never ran
    contained,  // it ran and the sandbox stopped it: a limit, a denied system call, a kill
    ran,        // it ran and ended by itself, whatever its exit status
    error,      // the sandbox itself failed
};
std::string_view to_string(AnswerStatus status) noexcept;

struct AnswerOptions {
    ExtractOptions extract;
    Policy policy;
    bool scan = true;  // false: skip the scanner (the sandbox still applies)
    Limits limits;
    IsolationProfile isolation;
    std::string template_name;  // the template whose environment runs the code (docs/templates.md); empty: default
};

struct AnswerRun {
    AnswerStatus status = AnswerStatus::not_run;
    std::string reason;  // why it did not run: "No code found: ...", "Unsafe pattern detected in generated code: ..."
    std::optional<Extraction> extraction;
    std::vector<Finding> findings;
    std::optional<ExecResult> exec;
};

// Step 2 of every evaluation: scans run.extraction's code (unless options.scan is false) into run.findings; when
// a finding blocks, sets status blocked and the reason in the tutorial's words. True when the code may run.
bool scan_answer(AnswerRun& run, const AnswerOptions& options);

// blocked when a finding blocks; not_run with no execution; error when the sandbox failed; contained when it
// stopped the program (a limit, a kill, a denied system call); else ran.
AnswerStatus classify_answer(const std::vector<Finding>& findings, const std::optional<ExecResult>& exec);

// The whole pipeline on a model's raw answer: extract, scan, execute (blocking), classify. Never throws for
// what the model wrote; throws input_error or sandbox_error when the sandbox refuses or cannot run the code.
AnswerRun run_answer(Sandbox& sandbox, std::string_view model_output, const AnswerOptions& options);

// The same from code already extracted (e2beval redteam picks the attack's code itself).
AnswerRun run_extracted(Sandbox& sandbox, Extraction extraction, const AnswerOptions& options);

}  // namespace e2beval

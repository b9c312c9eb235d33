// Reasons of compared outputs and the verdict's summary of its cases (src/eval/case_judging.hpp).
#include "case_judging.hpp"

#include "e2beval/core/text.hpp"

namespace e2beval::case_judging {

std::string clip(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return std::string(text);
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return std::string(text.substr(0, cut)) + "\xE2\x80\xA6";
}

void judge_output(CaseResult& result, const std::string& expected, const CompareMode& mode) {
    const auto comparison = compare_output(expected, result.actual, mode);
    const auto got = trim_whitespace(result.actual);
    result.passed = comparison.equal;
    if (comparison.equal) {
        result.reason = "Correct output: " + clip(got);
        return;
    }
    const auto shown = mode.kind == CompareKind::regex && mode.pattern ? *mode.pattern : trim_whitespace(expected);
    result.reason = "Expected " + clip(shown) + ", got " + (got.empty() ? std::string("(empty)") : clip(got));
    if (!comparison.detail.empty()) result.reason += " (" + comparison.detail + ")";
}

std::string compile_reason(const CompileResult& compile) {
    if (compile.outcome == Outcome::compile_error) return "Compile error: " + clip(compile.detail);
    return "Compile error: " + std::string(to_string(compile.outcome)) + ": " + clip(compile.detail);
}

void summarize_cases(Verdict& verdict) {
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
                             " test cases passed; case " + std::to_string(i + 1) + " (" + preview(verdict.cases[i].input, 60) +
                             "): " + verdict.cases[i].reason;
            break;
        }
    }
}

}  // namespace e2beval::case_judging

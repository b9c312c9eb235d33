// How a case's result becomes its reason, shared by the Python-harness shapes (src/eval/shapes/) and the shapes that
// run a program of the test's own language (compiled_shapes.cpp), so a case reads the same in both.
#pragma once

#include <string>
#include <string_view>

#include "e2beval/eval/runner.hpp"

namespace e2beval::case_judging {

// At most `max_bytes` of `text` (cut on a character boundary, "…" appended), so reasons stay readable.
std::string clip(std::string_view text, std::size_t max_bytes = 500);

// "Correct output: X" or "Expected X, got Y (detail)", the tutorial's wording for every compared output.
void judge_output(CaseResult& result, const std::string& expected, const CompareMode& mode);

// "Compile error: main.cpp:3:5: error: ..." (the compiler's first error), or the compile stage's limit
// ("Compile error: compile_timeout: ...").
std::string compile_reason(const CompileResult& compile);

// The verdict's score, pass and reason from its cases: the one case's reason, "All N test cases passed", or
// "K of N test cases passed; case I (input): reason" for the first failing case.
void summarize_cases(Verdict& verdict);

}  // namespace e2beval::case_judging

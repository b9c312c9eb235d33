// SandboxFusion's code extraction for /submit (sandbox/utils/extraction.py, `default_extract_helper`): the code a
// stdin/stdout answer or a free-form Python HumanEval answer is judged by. Kept as upstream chooses it, so that a
// verdict here is the verdict SandboxFusion gives; written as scanners rather than regular expressions, so a
// hostile answer of any length costs linear time.
#pragma once

#include <string>
#include <string_view>

namespace e2beval::server::sandbox_fusion {

struct ExtractedCode {
    std::string code;
    // SandboxFusion's ExtractedType of the block taken: "fenced", "incomplete_fenced", "heuristic", or "empty"
    // when the answer holds no code (then `code` is "").
    std::string type = "empty";
};

// The canonical name of a fence's tag ("py" -> "python", "c++" -> "cpp", "js" -> "nodejs"), "" when unknown.
std::string_view fence_language(std::string_view tag) noexcept;

// Every complete fenced block (priority 30), Python `def`/`class` blocks with the imports before them or, for bash,
// the whole answer without blank lines (priority 10), and the unterminated last fence (priority 20); of the highest
// priority present, the first block whose tag is `language` (a SandboxFusion language name), else the first.
ExtractedCode extract_code(std::string_view completion, std::string_view language);

}  // namespace e2beval::server::sandbox_fusion

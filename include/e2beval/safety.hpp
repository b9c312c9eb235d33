// SafetyScanner: static checks on extracted code, on tokens (never on raw text), per language.
// Advice before the sandbox, never a replacement for it: the sandbox is the security boundary.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/types.hpp"

namespace e2beval {

enum class Severity { info, warning, block };
std::string_view to_string(Severity severity) noexcept;

struct Finding {
    std::string rule;      // stable id, e.g. "import-socket", "os-system", "call-eval"
    Severity severity = Severity::block;
    std::size_t line = 0;    // 1-based
    std::size_t column = 0;  // 1-based, in bytes
    std::string message;   // what was found and why it matters
};

enum class PolicyPreset { tutorial, standard, strict };
std::string_view to_string(PolicyPreset preset) noexcept;

struct Policy {
    PolicyPreset preset = PolicyPreset::standard;
    std::vector<std::string> allow_rules;  // rule ids never reported
    std::vector<std::string> deny_rules;   // rule ids raised to block
};

class SafetyScanner {
public:
    explicit SafetyScanner(Policy policy = {});

    std::vector<Finding> scan(std::string_view code, Language language) const;

    // True when any finding has severity block.
    static bool blocks(const std::vector<Finding>& findings) noexcept;

private:
    Policy policy_;
};

}  // namespace e2beval

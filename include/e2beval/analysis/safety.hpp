// SafetyScanner: static checks on extracted code, on tokens (never on raw text), per language.
// Advice before the sandbox, never a replacement for it: the sandbox is the security boundary.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/core/types.hpp"

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

// tutorial: the tutorial's ten checks (on tokens), for comparison. standard: the default, blocks what reaches the
// OS, the network or the interpreter's internals; eval is a warning. strict: also eval, exec of any kind,
// file writes, any absolute path, introspection. docs/scanner.md has the full table.
enum class PolicyPreset { tutorial, standard, strict };
std::string_view to_string(PolicyPreset preset) noexcept;
std::optional<PolicyPreset> policy_preset_from_string(std::string_view name) noexcept;

struct Policy {
    PolicyPreset preset = PolicyPreset::standard;
    std::vector<std::string> allow_rules;  // rule ids never reported
    std::vector<std::string> deny_rules;   // rule ids raised to block
    // Modules by name ("pickle", "urllib.request"; a name covers its submodules), Python and JavaScript alike.
    std::vector<std::string> allow_modules;  // importing these is never a finding (other rules still apply)
    std::vector<std::string> deny_modules;   // importing these is a block finding "denied-module"
    // Calls by name as written ("eval", "os.getcwd", "shutil.rmtree"); a bare name matches any receiver.
    std::vector<std::string> allow_calls;  // findings about calling these are dropped
    std::vector<std::string> deny_calls;   // calling these is a block finding "denied-call"
};

// One rule as the scanner knows it: for `e2beval scan --list-rules` and the documentation.
struct RuleInfo {
    std::string_view id;
    Language language = Language::python;
    std::optional<Severity> tutorial;  // nullopt: not reported under that preset
    std::optional<Severity> standard;
    std::optional<Severity> strict;
    std::string_view summary;
};

class SafetyScanner {
public:
    explicit SafetyScanner(Policy policy = {});

    std::vector<Finding> scan(std::string_view code, Language language) const;

    // True when any finding has severity block.
    static bool blocks(const std::vector<Finding>& findings) noexcept;

    // Every rule with its severity under each preset, in a stable order.
    static std::vector<RuleInfo> rules();

private:
    Policy policy_;
};

}  // namespace e2beval

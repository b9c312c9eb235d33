// Names of the shared enums, as they appear in JSON, reports and the CLI.
#include "e2beval/core/types.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace e2beval {

namespace {
constexpr std::array<std::pair<Outcome, std::string_view>, 15> kOutcomeNames{{
    {Outcome::ok, "ok"},
    {Outcome::exit_nonzero, "exit_nonzero"},
    {Outcome::signaled, "signaled"},
    {Outcome::timeout, "timeout"},
    {Outcome::cpu_limit, "cpu_limit"},
    {Outcome::memory_limit, "memory_limit"},
    {Outcome::output_limit, "output_limit"},
    {Outcome::file_limit, "file_limit"},
    {Outcome::pids_limit, "pids_limit"},
    {Outcome::seccomp_violation, "seccomp_violation"},
    {Outcome::sandbox_error, "sandbox_error"},
    {Outcome::cancelled, "cancelled"},
    {Outcome::compile_error, "compile_error"},
    {Outcome::compile_timeout, "compile_timeout"},
    {Outcome::compile_memory_limit, "compile_memory_limit"},
}};
}  // namespace

std::string_view to_string(Outcome outcome) noexcept {
    for (const auto& [value, name] : kOutcomeNames)
        if (value == outcome) return name;
    return "sandbox_error";
}

std::optional<Outcome> outcome_from_string(std::string_view name) noexcept {
    for (const auto& [value, known] : kOutcomeNames)
        if (known == name) return value;
    return std::nullopt;
}

std::string output_limit_detail(std::uint64_t limit_bytes, std::string_view stream) {
    return "killed after writing more than " + std::to_string(limit_bytes) + " bytes to " + std::string(stream) +
           " (the output limit per stream; raise it with --output-limit BYTES, or limits.output_bytes in Python, a "
           "promptfoo config or a --profile file)";
}

std::string_view to_string(SeccompMode mode) noexcept { return mode == SeccompMode::kill ? "kill" : "deny"; }

std::string_view to_string(IsolationLevel level) noexcept {
    return level == IsolationLevel::full ? "full" : "standard";
}

std::optional<SeccompMode> seccomp_mode_from_string(std::string_view name) noexcept {
    if (name == "deny" || name == "errno" || name == "eperm") return SeccompMode::deny;
    if (name == "kill") return SeccompMode::kill;
    return std::nullopt;
}

std::optional<IsolationLevel> isolation_level_from_string(std::string_view name) noexcept {
    if (name == "standard") return IsolationLevel::standard;
    if (name == "full") return IsolationLevel::full;
    return std::nullopt;
}

}  // namespace e2beval

// Names of the shared enums, as they appear in JSON, reports and the CLI.
#include "e2beval/core/types.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace e2beval {

std::string_view to_string(Language language) noexcept {
    switch (language) {
        case Language::python: return "python";
        case Language::javascript: return "javascript";
        case Language::bash: return "bash";
    }
    return "unknown";
}

std::optional<Language> language_from_tag(std::string_view tag) noexcept {
    std::string lower(tag);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    static constexpr std::array<std::pair<std::string_view, Language>, 13> kTags{{
        {"python", Language::python}, {"py", Language::python}, {"python3", Language::python},
        {"py3", Language::python}, {"javascript", Language::javascript}, {"js", Language::javascript},
        {"node", Language::javascript}, {"nodejs", Language::javascript}, {"mjs", Language::javascript},
        {"bash", Language::bash}, {"sh", Language::bash}, {"shell", Language::bash}, {"zsh", Language::bash},
    }};
    for (const auto& [name, language] : kTags)
        if (lower == name) return language;
    return std::nullopt;
}

namespace {
constexpr std::array<std::pair<Outcome, std::string_view>, 12> kOutcomeNames{{
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

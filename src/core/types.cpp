// Names of the shared enums, as they appear in JSON, reports and the CLI.
#include "e2beval/core/types.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace e2beval {

namespace {

// Every name a language goes by, in one table: the tags models write on fences (and `--language` takes) and the
// file extensions `e2beval run FILE` reads the language from. A language descriptor (the compiled languages, a
// later issue) takes this table over whole; nothing else spells a language's names.
struct LanguageNames {
    Language language;
    std::string_view name;
    std::array<std::string_view, 4> other_tags;  // empty slots are unused
    std::array<std::string_view, 3> extensions;  // with their dot
};
constexpr std::array<LanguageNames, 3> kLanguageNames{{
    {Language::python, "python", {"py", "python3", "py3"}, {".py"}},
    {Language::javascript, "javascript", {"js", "node", "nodejs", "mjs"}, {".js", ".mjs", ".cjs"}},
    {Language::bash, "bash", {"sh", "shell", "zsh"}, {".sh", ".bash"}},
}};

std::string lowercase(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

}  // namespace

std::string_view to_string(Language language) noexcept {
    for (const auto& names : kLanguageNames)
        if (names.language == language) return names.name;
    return "unknown";
}

std::optional<Language> language_from_tag(std::string_view tag) noexcept {
    const auto lower = lowercase(tag);
    for (const auto& names : kLanguageNames) {
        if (lower == names.name) return names.language;
        for (const auto other : names.other_tags)
            if (!other.empty() && lower == other) return names.language;
    }
    return std::nullopt;
}

std::optional<Language> language_from_file_name(std::string_view path) noexcept {
    const auto name = path.substr(path.find_last_of('/') + 1);
    const auto dot = name.find_last_of('.');
    if (dot == std::string_view::npos || dot == 0) return std::nullopt;  // no extension, or a dot file (".py")
    const auto extension = lowercase(name.substr(dot));
    for (const auto& names : kLanguageNames)
        for (const auto known : names.extensions)
            if (!known.empty() && extension == known) return names.language;
    return std::nullopt;
}

std::string file_extensions_text(Language language) {
    std::string text;
    for (const auto& names : kLanguageNames)
        if (names.language == language)
            for (const auto extension : names.extensions)
                if (!extension.empty()) text += (text.empty() ? "" : ", ") + std::string(extension);
    return text;
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

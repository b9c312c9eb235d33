// Internal: what the scanner's rule sets share: the sink that applies a Policy (presets, allow and deny lists)
// to every finding a rule set makes, the module and call matching the lists use, where a literal path points,
// nested code (a string that eval or `python -c` runs), and the words that obfuscation hides.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analysis/rule_catalog.hpp"
#include "e2beval/analysis/safety.hpp"

namespace e2beval::detail {

// Appended to the message of every network finding.
constexpr std::string_view kNoNetwork = " (the sandbox has no network; this is advice)";

inline bool contains(const std::vector<std::string>& ids, std::string_view id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

inline std::optional<Severity> severity_of(Level level) {
    switch (level) {
        case Level::off: return std::nullopt;
        case Level::info: return Severity::info;
        case Level::warning: return Severity::warning;
        case Level::block: return Severity::block;
    }
    return std::nullopt;
}

// A module name matches a list entry when it is the entry or one of its submodules: "urllib" covers
// "urllib.request" (Python, Java), "net" covers "net/http" (Go), "std::net" covers "std::net::TcpStream" (Rust).
inline bool module_listed(const std::vector<std::string>& list, std::string_view module) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& entry) {
        if (module == entry) return true;
        if (!module.starts_with(entry) || module.size() <= entry.size()) return false;
        const char next = module[entry.size()];
        return next == '.' || next == '/' || next == ':';
    });
}

// The last name of a qualified one: "os.system", "std::system", "exec.Command" give "system", "system", "Command".
inline std::string_view last_component(std::string_view qualified) {
    const std::size_t separator = qualified.find_last_of(".:");
    return separator == std::string_view::npos ? qualified : qualified.substr(separator + 1);
}

// A call matches an entry spelled as written, as resolved through imports, or (for a bare entry) by its last name.
inline bool call_listed(const std::vector<std::string>& list, std::string_view written, std::string_view qualified) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& entry) {
        if (entry == written || entry == qualified) return true;
        return entry.find_first_of(".:") == std::string::npos && (entry == last_component(written) || entry == last_component(qualified));
    });
}

// Where a literal path given to a file call points, as Python's open-* rules and JavaScript's js-fs-* rules
// judge it (one classification, so that both languages draw the line in the same place).
enum class PathKind {
    inside,    // relative and staying in the working directory, or a harmless device (/dev/null, /dev/stdin, ...)
    system,    // system files, devices, home directories: /etc, /proc, /sys, /dev, /root, /home, /var, ~ ...
    parent,    // climbs out of the working directory with ..
    absolute,  // another absolute path
};

inline bool path_starts_with_directory(std::string_view path, std::string_view directory) {
    return path.starts_with(directory) && (path.size() == directory.size() || path[directory.size()] == '/');
}

inline PathKind classify_path(std::string_view path) {
    static constexpr std::array<std::string_view, 10> kSystemRoots{
        "/etc", "/proc", "/sys", "/root", "/home", "/var", "/boot", "/run", "/usr/lib", "/lib"};
    static constexpr std::array<std::string_view, 7> kHarmlessDevices{
        "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/stdin", "/dev/stdout", "/dev/stderr"};
    const bool harmless_device =
        std::find(kHarmlessDevices.begin(), kHarmlessDevices.end(), path) != kHarmlessDevices.end();
    if (harmless_device) return PathKind::inside;
    const bool system_root = std::any_of(kSystemRoots.begin(), kSystemRoots.end(), [&](std::string_view root) {
        return path_starts_with_directory(path, root);
    });
    if (system_root || path_starts_with_directory(path, "/dev") || path.starts_with("~") || path.starts_with("$HOME"))
        return PathKind::system;
    if (path == ".." || path.starts_with("../") || path.find("/../") != std::string_view::npos || path.ends_with("/.."))
        return PathKind::parent;
    if (path.starts_with("/")) return PathKind::absolute;
    return PathKind::inside;
}

// What a finding is about, so that allow_modules and allow_calls can drop it.
struct Subject {
    enum class Kind { none, module, call } kind = Kind::none;
    std::string written;
    std::string qualified;
};

// Applies the policy as findings are made: a denied rule is reported as block even outside its preset, and
// wins over allow (when a rule is on both lists, the safer reading is taken).
class FindingSink {
public:
    explicit FindingSink(const Policy& policy) : policy_(policy) {}

    const Policy& policy() const noexcept { return policy_; }

    // `rule` is checked at compile time (RuleId); a default one (a table entry that exempts) reports nothing.
    void add(RuleId rule, std::size_t line, std::size_t column, std::string message, const Subject& subject = {}) {
        if (!rule) return;
        const std::string_view rule_id = rule.id();
        const bool denied = contains(policy_.deny_rules, rule_id) || rule == "denied-module" || rule == "denied-call";
        if (!denied) {
            if (contains(policy_.allow_rules, rule_id)) return;
            if (subject.kind == Subject::Kind::module &&
                (module_listed(policy_.allow_modules, subject.written) || module_listed(policy_.allow_modules, subject.qualified)))
                return;
            if (subject.kind == Subject::Kind::call && call_listed(policy_.allow_calls, subject.written, subject.qualified))
                return;
        }
        const auto severity = denied ? std::optional<Severity>(Severity::block)
                                     : severity_of(rule.rule().levels[static_cast<std::size_t>(policy_.preset)]);
        if (!severity) return;
        Finding finding;
        finding.rule = std::string(rule_id);
        finding.severity = *severity;
        finding.line = line;
        finding.column = column;
        finding.message = std::move(message);
        findings_.push_back(std::move(finding));
    }

    // A finding made by scanning code nested in a string (exec("..."), python -c "..."): already judged by the
    // policy; it is moved to where the string is, and says so.
    void add_nested(Finding finding, std::size_t line, std::size_t column, std::string_view where) {
        finding.line = line;
        finding.column = column;
        finding.message = std::string(where) + ": " + finding.message;
        findings_.push_back(std::move(finding));
    }

    std::vector<Finding> take() && {
        std::sort(findings_.begin(), findings_.end(), [](const Finding& a, const Finding& b) {
            return std::tie(a.line, a.column, a.rule) < std::tie(b.line, b.column, b.rule);
        });
        findings_.erase(std::unique(findings_.begin(), findings_.end(),
                                    [](const Finding& a, const Finding& b) {
                                        return a.line == b.line && a.column == b.column && a.rule == b.rule;
                                    }),
                        findings_.end());
        return std::move(findings_);
    }

private:
    const Policy& policy_;
    std::vector<Finding> findings_;
};

// Findings for `code` in `language`, nested `depth` strings deep (safety.cpp dispatches to each language's rules).
void scan_code(std::string_view code, Language language, FindingSink& sink, int depth);

constexpr int kMaxNesting = 4;  // exec("exec('...')") and so on: deeper strings are not unpacked

// Scans code found inside a string literal and reports what it holds at the literal's place.
inline void scan_nested(std::string_view code, Language language, FindingSink& sink, int depth, std::size_t line,
                        std::size_t column, std::string_view where) {
    if (depth >= kMaxNesting) return;
    FindingSink inner(sink.policy());
    scan_code(code, language, inner, depth + 1);
    for (auto& finding : std::move(inner).take()) sink.add_nested(std::move(finding), line, column, where);
}

// Words that, assembled from pieces or fed through obfuscation, mean someone is hiding what the code does.
bool is_dangerous_word(std::string_view word);

// Dangerous words in `joined` (whole words) that no single piece holds whole: the pieces split them on purpose.
// `piece_ends` are the offsets in `joined` where one piece ends and the next begins.
std::optional<std::string> split_dangerous_word(const std::string& joined, const std::vector<std::size_t>& piece_ends);

}  // namespace e2beval::detail

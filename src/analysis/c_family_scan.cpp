// The interpreter of the C-family rule tables: imports (includes, Go and Java imports, Rust's use trees),
// names and calls, qualified paths, lookups by name, and string literals that name host paths.
#include "analysis/c_family_rules.hpp"

#include <algorithm>
#include <iterator>

namespace e2beval::detail {

namespace {


// What joins a qualified name: `::` in C++ and Rust (where `.` is a member access), `.` in Go and Java (where it is
// both: packages and classes are named as fields are).
bool is_separator(const CToken& token, CDialect dialect) {
    if (token.kind != CTokenKind::punct) return false;
    return dialect == CDialect::go || dialect == CDialect::java ? token.text == "." : token.text == "::";
}

bool starts_with_directory(std::string_view path, std::string_view directory) {
    return path.starts_with(directory) && (path.size() == directory.size() || path[directory.size()] == '/');
}

// A path under the host's system directories, a home, or climbing out of the workspace.
bool is_system_path(std::string_view path) {
    static constexpr std::string_view kDirectories[] = {"/etc", "/proc", "/sys", "/dev", "/root", "/home",
                                                        "/var", "/boot", "/run", "/usr", "/bin", "/sbin",
                                                        "/lib", "/lib64", "/opt", "/srv", "/mnt", "/media"};
    for (const auto directory : kDirectories)
        if (starts_with_directory(path, directory)) return true;
    return path == "~" || path.starts_with("~/") || path == ".." || path.starts_with("../") ||
           path.find("/../") != std::string_view::npos || path.ends_with("/..");
}

// Whether the module a rule names covers `module`: itself, or something under it.
bool module_covers(std::string_view entry, std::string_view module) {
    if (module == entry) return true;
    if (!module.starts_with(entry) || module.size() <= entry.size()) return false;
    if (entry.ends_with('/') || entry.ends_with('.') || entry.ends_with(':')) return true;
    const char next = module[entry.size()];
    return next == '.' || next == '/' || next == ':';
}

// Keywords after which a name is used, not declared: `return system(...)`, `go exec(...)`, `new Socket(...)`.
bool is_expression_keyword(std::string_view word) {
    static constexpr std::string_view kKeywords[] = {"return", "else", "do", "case", "throw", "co_return", "co_yield",
                                                     "co_await", "await", "go", "defer", "new", "sizeof", "yield",
                                                     "in", "not", "and", "or", "assert", "move", "unsafe"};
    return std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords);
}

bool name_matches(std::string_view entry, std::string_view written) {
    if (written == entry) return true;
    if (entry.find_first_of(".:") == std::string_view::npos) return last_component(written) == entry;
    if (!written.ends_with(entry) || written.size() <= entry.size()) return false;
    const char before = written[written.size() - entry.size() - 1];
    return before == '.' || before == ':';
}

}  // namespace

CFamilyScan::CFamilyScan(std::string_view code, const CFamilyRules& rules, FindingSink& sink)
    : rules_(rules), tokens_(tokenize_c_family(code, rules.dialect)), sink_(sink) {}

bool CFamilyScan::punct(std::size_t i, std::string_view text) const noexcept {
    return i < tokens_.size() && tokens_[i].kind == CTokenKind::punct && tokens_[i].text == text;
}

bool CFamilyScan::identifier(std::size_t i, std::string_view text) const noexcept {
    return i < tokens_.size() && tokens_[i].kind == CTokenKind::identifier && tokens_[i].text == text;
}

std::size_t CFamilyScan::matching_close(std::size_t open) const noexcept {
    std::size_t depth = 0;
    for (std::size_t i = open; i < tokens_.size(); ++i) {
        if (punct(i, "(") || punct(i, "[") || punct(i, "{")) ++depth;
        else if ((punct(i, ")") || punct(i, "]") || punct(i, "}")) && --depth == 0) return i;
    }
    return tokens_.size();
}

std::optional<std::string> CFamilyScan::constant_string(std::size_t i, std::size_t* end) const {
    if (i >= tokens_.size() || tokens_[i].kind != CTokenKind::string) return std::nullopt;
    std::string value = tokens_[i].value;
    std::size_t next = i + 1;
    while (next < tokens_.size()) {
        if (tokens_[next].kind == CTokenKind::string) {
            value += tokens_[next].value;
            ++next;
        } else if (punct(next, "+") && next + 1 < tokens_.size() && tokens_[next + 1].kind == CTokenKind::string) {
            value += tokens_[next + 1].value;
            next += 2;
        } else {
            break;
        }
    }
    if (end) *end = next;
    return value;
}

void CFamilyScan::report(RuleId rule, const CToken& at, std::string message, const Subject& subject) {
    sink_.add(rule, at.line, at.column, std::move(message), subject);
}

const ModuleRule* CFamilyScan::module_rule(std::string_view module) const {
    const ModuleRule* best = nullptr;
    for (const auto& entry : rules_.modules)
        if (module_covers(entry.module, module) && (!best || entry.module.size() > best->module.size())) best = &entry;
    return best;
}

void CFamilyScan::check_module(std::string_view module, const CToken& at, std::string_view how) {
    const Subject subject{Subject::Kind::module, std::string(module), std::string(module)};
    if (module_listed(sink_.policy().deny_modules, module))
        report("denied-module", at, std::string(how) + " " + std::string(module) + ", which the policy denies", subject);
    const ModuleRule* entry = module_rule(module);
    if (!entry || !entry->rule) return;
    std::string message = std::string(how) + " " + std::string(module) + ": " + std::string(entry->what);
    if (entry->rule.id().ends_with("-network")) message += kNoNetwork;
    report(entry->rule, at, std::move(message), subject);
}

bool CFamilyScan::path_leaves_workspace(std::string_view path) {
    return path.starts_with('/') || path == ".." || path.starts_with("../") || path.find("/../") != std::string_view::npos ||
           path.ends_with("/..") || path.starts_with('~');
}

// The qualified name written up to the identifier at `last` (`std::process::Command`, `Runtime.getRuntime`);
// `first` is set to its first token.
std::string CFamilyScan::written_chain(std::size_t last, std::size_t* first) const {
    std::size_t begin = last;
    while (begin >= 2 && is_separator(tokens_[begin - 1], rules_.dialect) && tokens_[begin - 2].kind == CTokenKind::identifier) begin -= 2;
    if (first) *first = begin;
    std::string chain;
    for (std::size_t k = begin; k <= last; ++k) chain += tokens_[k].text;
    return chain;
}

void CFamilyScan::run() {
    std::size_t import_end = 0;  // the tokens of an import are checked as the import, not again as names
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
        const CToken& token = tokens_[i];
        if (token.kind == CTokenKind::header && i > 0 && tokens_[i - 1].kind == CTokenKind::directive &&
            tokens_[i - 1].value != "embed" && tokens_[i - 1].value.rfind("go:", 0) != 0) {
            check_module(token.value, token, "includes");
        } else if (token.kind == CTokenKind::identifier && i >= import_end) {
            import_end = check_imports(i);
            if (import_end == i) check_name(i);
        } else if (token.kind == CTokenKind::string && i >= import_end) {
            check_string(i);
        }
    }
    if (rules_.special) rules_.special(*this);
}

// Go's `import "x"` / `import (...)`, Java's `import a.b.C;`, Rust's `use a::{b, c::d};` and `extern crate x;`:
// each module is checked; returns the index past the statement, or `i` when there is none at `i`.
std::size_t CFamilyScan::check_imports(std::size_t i) {
    const CToken& token = tokens_[i];
    if (token.in_directive) return i;
    switch (rules_.dialect) {
        case CDialect::go: {
            if (token.text != "import") return i;
            if (punct(i + 1, "(")) {
                const std::size_t close = matching_close(i + 1);
                for (std::size_t k = i + 2; k < close; ++k)
                    if (tokens_[k].kind == CTokenKind::string) check_module(tokens_[k].value, tokens_[k], "imports");
                return std::min(close + 1, tokens_.size());
            }
            for (std::size_t k = i + 1; k <= i + 2 && k < tokens_.size(); ++k) {  // import "x", import alias "x"
                if (tokens_[k].kind != CTokenKind::string) continue;
                check_module(tokens_[k].value, tokens_[k], "imports");
                return k + 1;
            }
            return i + 1;
        }
        case CDialect::java: {
            if (token.text != "import") return i;
            std::size_t j = i + 1;
            if (identifier(j, "static")) ++j;
            std::string path;
            const std::size_t path_begin = j;
            for (; j < tokens_.size() && !punct(j, ";"); ++j) path += tokens_[j].text;
            if (path.ends_with(".*")) path.resize(path.size() - 2);
            if (!path.empty()) check_module(path, tokens_[path_begin], "imports");
            return j;
        }
        case CDialect::rust: {
            if (token.text == "extern" && identifier(i + 1, "crate") && i + 2 < tokens_.size()) {
                check_module(tokens_[i + 2].text, tokens_[i + 2], "links the crate");
                return i + 3;
            }
            if (token.text != "use") return i;
            return check_use_tree(i + 1);
        }
        case CDialect::c:
        case CDialect::cpp: return i;
    }
    return i;
}

// A Rust use tree up to its `;`: `std::{net::TcpStream, process::{self, Command}}` is std::net::TcpStream,
// std::process and std::process::Command.
std::size_t CFamilyScan::check_use_tree(std::size_t begin) {
    std::vector<std::string> prefixes{""};
    std::string current;
    std::size_t piece_at = begin;
    const auto emit = [&] {
        std::string path = prefixes.back() + current;
        current.clear();
        for (const std::string_view tail : {"::*", "::self", "::"})
            if (path.ends_with(tail)) path.resize(path.size() - tail.size());
        if (path.starts_with("::")) path.erase(0, 2);
        if (!path.empty()) check_module(path, tokens_[piece_at], "uses");
    };
    std::size_t k = begin;
    for (; k < tokens_.size() && !punct(k, ";"); ++k) {
        const CToken& token = tokens_[k];
        if (punct(k, "{")) {  // the group's own path is not a use; its members are
            prefixes.push_back(prefixes.back() + current);
            current.clear();
        } else if (punct(k, ",") || punct(k, "}")) {
            if (!current.empty()) emit();
            if (punct(k, "}") && prefixes.size() > 1) prefixes.pop_back();
        } else if (identifier(k, "as")) {
            if (!current.empty()) emit();
            ++k;  // the alias
        } else if (token.kind == CTokenKind::identifier || punct(k, "::") || punct(k, "*")) {
            if (current.empty()) piece_at = k;
            current += token.text;
        } else {
            break;  // not a use tree this interpreter knows: stop, the names that follow are checked as code
        }
    }
    if (!current.empty()) emit();
    return k;
}

void CFamilyScan::check_name(std::size_t i) {
    const CToken& token = tokens_[i];
    std::size_t first = i;
    const std::string chain = written_chain(i, &first);
    // `int fork() {`, `fn system(`, `func exec(`: a name right after a type or keyword is being declared.
    const bool declared = first > 0 && tokens_[first - 1].kind == CTokenKind::identifier &&
                          !is_expression_keyword(tokens_[first - 1].text);
    const bool called = punct(i + 1, "(") && !declared;
    const bool macro = punct(i + 1, "!") && (punct(i + 2, "(") || punct(i + 2, "[") || punct(i + 2, "{"));
    const bool member = first > 0 && (punct(first - 1, ".") || punct(first - 1, "->"));
    // `auto run = system;`, `f(&popen)`: a function taken as a value hides the call made through it later.
    const bool as_value = !called && !declared && !member && !punct(i + 1, "::") && first > 0 &&
                          (punct(first - 1, "=") || punct(first - 1, "(") || punct(first - 1, ",") ||
                           punct(first - 1, "&")) &&
                          (punct(i + 1, ";") || punct(i + 1, ")") || punct(i + 1, ",") || punct(i + 1, "}"));
    const Subject subject{Subject::Kind::call, chain, chain};

    // A qualified path in code (std::process::Command::new, java.net.URL), checked once, at its first name.
    if (rules_.paths_in_code && first == i && !member && is_separator_at(i + 1)) {
        std::string path(token.text);
        for (std::size_t k = i + 1; is_separator_at(k) && k + 1 < tokens_.size() &&
                                    tokens_[k + 1].kind == CTokenKind::identifier;
             k += 2)
            path += std::string(tokens_[k].text) + std::string(tokens_[k + 1].text);
        if (const ModuleRule* entry = module_rule(path); entry && !!entry->rule) check_module(path, token, "uses");
    }
    if (called && call_listed(sink_.policy().deny_calls, chain, chain))
        report("denied-call", tokens_[first], "calls " + chain + ", which the policy denies", subject);
    for (const auto& entry : rules_.names) {
        bool matches = false;
        switch (entry.use) {
            case NameUse::call: matches = (called || as_value) && name_matches(entry.name, chain); break;
            case NameUse::plain_call: matches = (called || as_value) && !member && name_matches(entry.name, chain); break;
            case NameUse::member_call: matches = called && member && token.text == entry.name; break;
            case NameUse::macro: matches = macro && token.text == entry.name; break;
            case NameUse::any: matches = name_matches(entry.name, chain); break;
        }
        if (!matches) continue;
        std::string message = entry.use == NameUse::macro ? "uses " + chain + "!"
                              : entry.use == NameUse::any ? "uses " + chain
                              : as_value                  ? "takes " + chain + " as a value (to call it by another name)"
                                                          : "calls " + chain + "()";
        message += ": " + std::string(entry.what);
        if (entry.rule.id().ends_with("-network")) message += kNoNetwork;
        report(entry.rule, tokens_[first], std::move(message), subject);
    }
    if (called && std::find(rules_.lookups_by_name.begin(), rules_.lookups_by_name.end(), token.text) !=
                      rules_.lookups_by_name.end())
        check_lookup(first, i + 1);
}

bool CFamilyScan::is_separator_at(std::size_t i) const noexcept {
    return i < tokens_.size() && is_separator(tokens_[i], rules_.dialect);
}

// dlsym(handle, "system"), Class.forName("java.lang." + "Runtime"): the names looked up are read as the
// tables would read them written out; a name computed at run time is a finding of its own.
void CFamilyScan::check_lookup(std::size_t first, std::size_t open) {
    const std::size_t close = std::min(matching_close(open), tokens_.size());
    const std::string chain = written_chain(open - 1, nullptr);
    bool constant = false;
    for (std::size_t k = open + 1; k < close; ++k) {
        std::size_t end = k + 1;
        const auto value = constant_string(k, &end);
        if (!value) continue;
        constant = true;
        if (const ModuleRule* entry = module_rule(*value); entry && !!entry->rule) {
            report(entry->rule, tokens_[k], "looks up " + *value + " by name with " + chain + "(): " + std::string(entry->what),
                   {Subject::Kind::module, *value, *value});
        } else if (const auto named = std::find_if(rules_.names.begin(), rules_.names.end(),
                                                   [&](const NameRule& rule) { return last_component(rule.name) == *value; });
                   named != rules_.names.end()) {
            report(named->rule, tokens_[k], "looks up " + *value + " by name with " + chain + "(): " + std::string(named->what),
                   {Subject::Kind::call, *value, *value});
        } else if (!!rules_.lookup_rule) {
            report(rules_.lookup_rule, tokens_[k], chain + "(\"" + value->substr(0, 80) + "\"): loads or finds code by "
                                                   "name, which these checks cannot follow",
                   {Subject::Kind::call, chain, chain});
        }
        k = end - 1;
    }
    if (!constant && !!rules_.lookup_rule)
        report(rules_.lookup_rule, tokens_[first], chain + "() of a computed name: loads or finds code these checks "
                                                   "cannot see", {Subject::Kind::call, chain, chain});
}

// A string literal (the first of a run joined by juxtaposition or `+`) naming a host path.
void CFamilyScan::check_string(std::size_t i) {
    if (!rules_.system_path_rule) return;
    if (i > 0 && (tokens_[i - 1].kind == CTokenKind::string ||
                  (punct(i - 1, "+") && i > 1 && tokens_[i - 2].kind == CTokenKind::string)))
        return;
    const auto value = constant_string(i);
    if (!value || !is_system_path(*value)) return;
    report(rules_.system_path_rule, tokens_[i], "names the host path \"" + value->substr(0, 80) +
                                                "\": outside the workspace (the sandbox shows none of the host's "
                                                "files; this is advice)");
}

void scan_c_family(std::string_view code, const CFamilyRules& rules, FindingSink& sink) {
    CFamilyScan(code, rules, sink).run();
}

}  // namespace e2beval::detail

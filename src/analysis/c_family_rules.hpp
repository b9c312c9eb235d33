// Internal: the scanner's rules for C, C++, Go, Rust and Java as data (one file per language under rules/),
// and the one interpreter that applies them to the C-family tokenizer's tokens (c_family_scan.cpp).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "analysis/c_family_tokenizer.hpp"
#include "analysis/scan_support.hpp"

namespace e2beval::detail {

// A module, package, header or class path, and what importing or naming it means. Paths are written as the
// language writes them ("sys/socket.h", "os/exec", "std::net", "java.net"); an entry covers what is under it
// ("java.net" covers "java.net.Socket"), and the longest entry that matches wins, so that an entry with an
// empty rule can exempt something under a dangerous path ("std::process::exit" under "std::process").
// A module is used by an import (`#include <...>`, Go's `import "..."`, Java's `import`, Rust's `use` and
// `extern crate`) or by a qualified name in code (`std::process::Command::new`, `java.net.URL`).
struct ModuleRule {
    std::string_view module;
    RuleId rule;  // {} exempts
    std::string_view what;  // why it matters, for the finding's message
};

enum class NameUse {
    call,         // NAME(...), NAME a qualified name's last part or the whole of it: `system(`, `std::system(`
    plain_call,   // a call not made on an object (no `.` or `->` before it): `fork()`, not `pool.fork()`
    member_call,  // a call made on an object: `.exec(` in Java
    macro,        // Rust's NAME!(...): `asm!`, `env!`
    any,          // the name anywhere as code: a type, a keyword, a path (`ProcessBuilder`, `unsafe`)
};

// A name in code and the rule it raises. Names may be qualified ("Runtime.getRuntime", "exec.Command"); a
// qualified entry matches the written name's tail, a bare one its last part.
struct NameRule {
    std::string_view name;
    NameUse use;
    RuleId rule;
    std::string_view what;
};

class CFamilyScan;

// One language's rules: its modules and names (its rule ids and severities are in rule_catalog.hpp), and what
// the tables cannot say (directives, a string's shape in a given position), as a function over the tokens.
struct CFamilyRules {
    Language language;
    CDialect dialect;
    std::span<const ModuleRule> modules;
    std::span<const NameRule> names;
    // Whether a qualified name in code is a module path (Rust's std::net::TcpStream, Java's java.net.URL); in
    // Go and C a.b is a value's field, and only imports name modules.
    bool paths_in_code;
    RuleId system_path_rule;  // a string literal naming a host system path (/etc, /proc, ...) or ../
    // Calls whose string argument names what they load or look up by name (dlsym, Class.forName): the string
    // is read as a module or name of this table, so that hiding a name in a string finds the same rule.
    std::span<const std::string_view> lookups_by_name;
    RuleId lookup_rule;  // a lookup by name of something the tables do not know
    void (*special)(CFamilyScan& scan);
};

const CFamilyRules& c_rules();     // C and C++ (rules/c_cpp.cpp)
const CFamilyRules& go_rules();    // rules/go.cpp
const CFamilyRules& rust_rules();  // rules/rust.cpp
const CFamilyRules& java_rules();  // rules/java.cpp

// The interpreter, handed to a language's `special` so that it reports as the tables do.
class CFamilyScan {
public:
    CFamilyScan(std::string_view code, const CFamilyRules& rules, FindingSink& sink);

    void run();

    const std::vector<CToken>& tokens() const noexcept { return tokens_; }
    bool punct(std::size_t i, std::string_view text) const noexcept;
    bool identifier(std::size_t i, std::string_view text) const noexcept;
    // The index of the bracket closing the one at `open`, or tokens().size().
    std::size_t matching_close(std::size_t open) const noexcept;
    // The value of the string literal at `i` joined with those that follow it by juxtaposition ("a" "b") or
    // `+`; `end` is set past the last one. nullopt when `i` is not a string literal.
    std::optional<std::string> constant_string(std::size_t i, std::size_t* end = nullptr) const;

    void report(RuleId rule, const CToken& at, std::string message, const Subject& subject = {});
    // A module path used at `at`: the module table's rule for it, and the policy's deny_modules.
    void check_module(std::string_view module, const CToken& at, std::string_view how);
    // A path a compile-time read names (#include, include_str!, //go:embed): absolute, /dev or ..-climbing.
    static bool path_leaves_workspace(std::string_view path);

private:
    std::size_t check_imports(std::size_t i);
    std::size_t check_use_tree(std::size_t begin);
    void check_name(std::size_t i);
    bool is_separator_at(std::size_t i) const noexcept;
    void check_string(std::size_t i);
    void check_lookup(std::size_t name_at, std::size_t open);
    std::string written_chain(std::size_t last, std::size_t* first) const;
    const ModuleRule* module_rule(std::string_view module) const;

    const CFamilyRules& rules_;
    std::vector<CToken> tokens_;
    FindingSink& sink_;
};

// Findings for `code` in one of the C-family languages, through `sink`.
void scan_c_family(std::string_view code, const CFamilyRules& rules, FindingSink& sink);

}  // namespace e2beval::detail

// SafetyScanner: rules on tokens of Python, JavaScript and bash (the C family's, TypeScript's and JavaScript's
// file-access rules are in rules/), so words inside strings and comments never match.
// The findings are advice shown before the sandbox runs the code; the sandbox stays the security boundary.
#include "e2beval/analysis/safety.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>

#include "analysis/bash_tokenizer.hpp"
#include "analysis/c_family_rules.hpp"
#include "analysis/javascript_fs_rules.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"
#include "analysis/js_tokenizer.hpp"
#include "analysis/python_tokenizer.hpp"
#include "analysis/scan_support.hpp"
#include "analysis/string_escapes.hpp"
#include "analysis/typescript_rules.hpp"

namespace e2beval {

using detail::unescape;

std::string_view to_string(Severity severity) noexcept {
    switch (severity) {
        case Severity::info: return "info";
        case Severity::warning: return "warning";
        case Severity::block: return "block";
    }
    return "block";
}

std::string_view to_string(PolicyPreset preset) noexcept {
    switch (preset) {
        case PolicyPreset::tutorial: return "tutorial";
        case PolicyPreset::standard: return "standard";
        case PolicyPreset::strict: return "strict";
    }
    return "standard";
}

std::optional<PolicyPreset> policy_preset_from_string(std::string_view name) noexcept {
    if (name == "tutorial") return PolicyPreset::tutorial;
    if (name == "standard") return PolicyPreset::standard;
    if (name == "strict") return PolicyPreset::strict;
    return std::nullopt;
}

namespace {

using detail::B;
using detail::call_listed;
using detail::find_rule;
using detail::FindingSink;
using detail::I;
using detail::last_component;
using detail::Level;
using detail::module_listed;
using detail::O;
using detail::Rule;
using detail::severity_of;
using detail::Subject;
using detail::W;

// ---------------------------------------------------------------------------------------------------------
// Rules

constexpr Language kPy = Language::python;
constexpr Language kJs = Language::javascript;
constexpr Language kSh = Language::bash;

// `tutorial` is exactly the ten checks of the tutorial's validate_and_run_code_e2b.py (on tokens), so results
// stay comparable with it; as the tutorial checked only Python, no JavaScript or bash rule is on under it.
// eval is a warning under `standard`: evaluating an expression string is a legitimate idiom (HumanEval/160's
// reference solution does it) and the sandbox contains whatever it runs; eval fed by obfuscation still blocks.
constexpr Rule kRules[] = {
    {"import-socket", kPy, {B, B, B}, "imports socket (raw network access)"},
    {"import-requests", kPy, {B, B, B}, "imports requests (HTTP client)"},
    {"import-urllib", kPy, {B, B, B}, "imports urllib, urllib2 or urllib3 (URL fetching)"},
    {"os-system", kPy, {B, B, B}, "os.system: runs a shell command"},
    {"subprocess", kPy, {B, B, B}, "any use of the subprocess module"},
    {"call-eval", kPy, {B, W, B}, "eval(): evaluates a string as an expression"},
    {"call-exec", kPy, {B, B, B}, "exec(): runs a string as statements"},
    {"open-etc", kPy, {B, B, B}, "open() of a path under /etc"},
    {"open-proc", kPy, {B, B, B}, "open() of a path under /proc"},
    {"dunder-import", kPy, {B, B, B}, "__import__(): imports a module by a computed name"},
    {"import-os-system", kPy, {O, B, B}, "from os import system (or *)"},
    {"import-ctypes", kPy, {O, B, B}, "imports ctypes or cffi (foreign functions, raw memory)"},
    {"import-process", kPy, {O, B, B}, "imports pty, multiprocessing, signal, pexpect, sh or plumbum"},
    {"import-network", kPy, {O, B, B}, "imports a network client or server module (http, ftplib, smtplib, ssl, ...)"},
    {"import-serialization", kPy, {O, B, B}, "imports pickle, marshal, shelve or dill (code execution on load)"},
    {"import-shutil", kPy, {O, B, B}, "imports shutil (recursive deletes and moves)"},
    {"import-importlib", kPy, {O, B, B}, "imports importlib"},
    {"import-interpreter", kPy, {O, B, B}, "imports code, codeop, runpy, imp, zipimport or pkgutil"},
    {"import-introspection", kPy, {O, W, B}, "imports inspect or gc (frames and every live object)"},
    {"os-popen", kPy, {O, B, B}, "os.popen: runs a shell command"},
    {"os-exec", kPy, {O, B, B}, "os.exec*, os.spawn*, os.posix_spawn*, asyncio subprocesses"},
    {"os-process", kPy, {O, B, B}, "os.fork, os.kill, os.setuid and other process control"},
    {"os-file-mutation", kPy, {O, B, B}, "os.remove, os.rename, os.chmod and other file-system changes"},
    {"os-environ", kPy, {O, W, B}, "os.environ, os.getenv (secrets in the environment)"},
    {"sys-internals", kPy, {O, B, B}, "sys.modules, sys._getframe, sys.settrace and other interpreter internals"},
    {"importlib-import-module", kPy, {O, B, B}, "importlib.import_module: imports a module by a computed name"},
    {"builtins-access", kPy, {O, B, B}, "__builtins__ or the builtins module (eval, exec, __import__ by another name)"},
    {"dunder-subclasses", kPy, {O, B, B}, "__subclasses__: walks the class tree to reach unimported objects"},
    {"dunder-globals", kPy, {O, B, B}, "__globals__: a function's module namespace"},
    {"dunder-escape", kPy, {O, B, B}, "__code__, __mro__, __bases__, frame attributes and other sandbox-escape dunders"},
    {"dynamic-lookup", kPy, {O, B, B}, "getattr or a namespace subscript reaching a dangerous name"},
    {"obfuscated-code", kPy, {O, B, B}, "eval, exec, getattr or an import fed by chr, base64, bytes, reversal or taint"},
    {"assembled-name", kPy, {O, B, B}, "a dangerous name assembled from string pieces"},
    {"globals-mutation", kPy, {O, B, B}, "writes into globals(), locals() or vars()"},
    {"call-compile", kPy, {O, W, B}, "compile(): builds code objects from strings"},
    {"call-globals", kPy, {O, O, B}, "globals(), locals() or vars() read"},
    {"call-breakpoint", kPy, {O, W, B}, "breakpoint(): starts a debugger"},
    {"open-system-path", kPy, {O, B, B}, "a file call on /sys, /dev, /root, /home, /var, /boot, /run, ~ (or /etc, /proc)"},
    {"open-parent-path", kPy, {O, B, B}, "a file call on a path that climbs out with .."},
    {"open-absolute-path", kPy, {O, W, B}, "a file call on another absolute path"},
    {"open-write", kPy, {O, W, B}, "open() with a write, append or update mode"},
    {"js-child-process", kJs, {O, B, B}, "require/import of child_process or cluster"},
    {"js-fs", kJs, {O, W, B}, "require/import of fs (a warning under standard: reading stdin needs it)"},
    {"js-fs-system-path", kJs, {O, B, B}, "an fs call on /etc, /proc, /sys, /dev, /root, /home, /var, /boot, /run, ~"},
    {"js-fs-parent-path", kJs, {O, B, B}, "an fs call on a path that climbs out with .."},
    {"js-fs-absolute-path", kJs, {O, W, B}, "an fs call on another absolute path"},
    {"js-fs-computed-path", kJs, {O, W, B}, "an fs call on a path computed at run time"},
    {"js-network", kJs, {O, B, B}, "require/import of net, http, https, http2, dgram, tls or dns; fetch, WebSocket"},
    {"js-vm", kJs, {O, B, B}, "require/import of vm, worker_threads, v8, inspector, module or repl"},
    {"js-dynamic-require", kJs, {O, B, B}, "require/import of a computed name, process.mainModule, module.constructor"},
    {"js-global-lookup", kJs, {O, B, B}, "globalThis[...] or global[...] with a computed key"},
    {"js-eval", kJs, {O, W, B}, "eval(), or setTimeout/setInterval with a string"},
    {"js-function-constructor", kJs, {O, W, B}, "Function(...), new Function(...), .constructor.constructor"},
    {"js-obfuscated-code", kJs, {O, B, B}, "eval, require or an fs path fed by fromCharCode, atob, Buffer, escapes, reversal"},
    {"js-process-env", kJs, {O, W, B}, "process.env (secrets in the environment)"},
    {"js-process-binding", kJs, {O, B, B}, "process.binding, process.dlopen, process.kill"},
    {"bash-network-tool", kSh, {O, B, B}, "curl, wget, nc, ssh and other network tools"},
    {"bash-dev-tcp", kSh, {O, B, B}, "/dev/tcp and /dev/udp (network connections from bash)"},
    {"bash-rm-root", kSh, {O, B, B}, "rm -r of / or /*"},
    {"bash-pipe-to-shell", kSh, {O, B, B}, "downloaded or decoded text piped into a shell or interpreter"},
    {"bash-outside-workspace", kSh, {O, B, B}, "reads or writes system paths (/etc, /proc, /root, ...) or ../"},
    {"bash-privileged", kSh, {O, B, B}, "sudo, su, mount, chroot, iptables, shutdown and other privileged commands"},
    {"bash-eval", kSh, {O, W, B}, "eval, or text piped or passed with -c to a shell from a computed string"},
    {"bash-write-absolute", kSh, {O, W, B}, "writes to an absolute path outside /tmp"},
};

// Rules with no preset of their own: they exist only through the policy's lists, and always block.
constexpr std::array<Rule, 2> kExtraRules{{
    {"denied-module", kPy, {O, O, O}, "imports a module on Policy::deny_modules (any language)"},
    {"denied-call", kPy, {O, O, O}, "calls a name on Policy::deny_calls (any language)"},
}};

// Every language's table, in the order `rules()` lists them: Python, JavaScript and bash here, the C family's
// and TypeScript's in their own files (rules/), then the policy-list rules.
std::array<std::span<const Rule>, 7> rule_tables() {
    return {kRules, detail::c_rules().table, detail::go_rules().table, detail::rust_rules().table,
            detail::java_rules().table, detail::typescript_rule_table(), kExtraRules};
}

template <typename Fn>
void for_each_rule(Fn&& fn) {
    for (const auto table : rule_tables())
        for (const auto& rule : table) fn(rule);
}

void check_rule_ids(const std::vector<std::string>& ids, std::string_view list_name) {
    for (const auto& id : ids) {
        if (find_rule(id)) continue;
        std::string known;
        for_each_rule([&](const Rule& rule) { known += (known.empty() ? "" : ", ") + std::string(rule.id); });
        throw input_error("unknown safety rule \"" + id + "\" in " + std::string(list_name) + "; known rules: " + known);
    }
}

constexpr std::string_view kNoNetwork = " (the sandbox has no network; this is advice)";
constexpr int kMaxNesting = 4;  // exec("exec('...')") and so on: deeper strings are not unpacked

void scan_code(std::string_view code, Language language, FindingSink& sink, int depth);

// Scans code found inside a string literal and reports what it holds at the literal's place.
void scan_nested(std::string_view code, Language language, FindingSink& sink, int depth, std::size_t line,
                 std::size_t column, std::string_view where) {
    if (depth >= kMaxNesting) return;
    FindingSink inner(sink.policy());
    scan_code(code, language, inner, depth + 1);
    for (auto& finding : std::move(inner).take()) sink.add_nested(std::move(finding), line, column, where);
}

// Words that, assembled from pieces or fed through obfuscation, mean someone is hiding what the code does.
bool is_dangerous_word(std::string_view word) {
    static constexpr std::array<std::string_view, 44> kWords{
        "os", "sys", "system", "popen", "subprocess", "eval", "exec", "execv", "execve", "execl", "__import__",
        "import", "import_module", "importlib", "socket", "builtins", "__builtins__", "getattr", "globals",
        "__subclasses__", "__globals__", "__code__", "__class__", "__mro__", "__bases__", "__base__", "spawn",
        "fork", "kill", "remove", "unlink", "rmtree", "Popen", "check_output", "check_call", "ctypes", "pickle",
        "marshal", "open", "sh", "bash", "curl", "wget", "child_process"};
    return std::find(kWords.begin(), kWords.end(), word) != kWords.end();
}

// Dangerous words in `joined` (whole words) that no single piece holds whole: the pieces split them on purpose.
std::optional<std::string> split_dangerous_word(const std::string& joined, const std::vector<std::size_t>& piece_ends) {
    std::size_t i = 0;
    while (i < joined.size()) {
        if (!detail::python_tokenizer_internal::is_identifier_char(joined[i])) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < joined.size() && detail::python_tokenizer_internal::is_identifier_char(joined[j])) ++j;
        const std::string_view word(joined.data() + i, j - i);
        if (is_dangerous_word(word)) {
            const bool crosses = std::any_of(piece_ends.begin(), piece_ends.end(),
                                             [&](std::size_t end) { return end > i && end < j; });
            if (crosses) return std::string(word);
        }
        i = j;
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------------
// Python

using detail::PyToken;
using detail::PyTokenKind;

bool ends_statement(const PyToken& token) { return token.kind == PyTokenKind::newline || is_op(token, ";"); }

bool is_open_bracket(const PyToken& token) { return is_op(token, "(") || is_op(token, "[") || is_op(token, "{"); }
bool is_close_bracket(const PyToken& token) { return is_op(token, ")") || is_op(token, "]") || is_op(token, "}"); }

std::string_view root_of(std::string_view dotted) { return dotted.substr(0, dotted.find('.')); }

bool starts_with_path(std::string_view path, std::string_view directory) {
    return path.starts_with(directory) && (path.size() == directory.size() || path[directory.size()] == '/');
}

bool is_exec_family(std::string_view name) {
    return name.starts_with("exec") || name.starts_with("spawn") || name.starts_with("posix_spawn");
}

// The string value of a literal token when it is fixed (no f-string fields); raw strings keep their backslashes.
std::optional<std::string> python_literal_value(const PyToken& token) {
    if (token.kind != PyTokenKind::string) return std::nullopt;
    const std::size_t quote = token.text.find_first_of("'\"");
    const std::string_view prefix = token.text.substr(0, quote);
    const std::string_view body = detail::string_literal_body(token.text);
    if (prefix.find_first_of("fFtT") != std::string_view::npos) {
        if (body.find('{') != std::string_view::npos) return std::nullopt;
    }
    if (prefix.find_first_of("rR") != std::string_view::npos) return std::string(body);
    return unescape(body);
}

struct ImportedModule {
    std::string dotted;             // "urllib.request"
    const PyToken* root = nullptr;  // the token of its first component, where a finding points
    std::string bound_as;           // the name the import binds ("os", or the alias)
    bool aliased = false;
};

// `import a.b as c, d` starting at the `import` keyword.
std::vector<ImportedModule> parse_import(const std::vector<PyToken>& tokens, std::size_t at) {
    std::vector<ImportedModule> modules;
    std::size_t i = at + 1;
    while (i < tokens.size() && tokens[i].kind == PyTokenKind::name) {
        ImportedModule module;
        module.root = &tokens[i];
        module.dotted = std::string(tokens[i].text);
        module.bound_as = module.dotted;
        ++i;
        while (i + 1 < tokens.size() && is_op(tokens[i], ".") && tokens[i + 1].kind == PyTokenKind::name) {
            module.dotted += "." + std::string(tokens[i + 1].text);
            i += 2;
        }
        if (i + 1 < tokens.size() && is_name(tokens[i], "as") && tokens[i + 1].kind == PyTokenKind::name) {
            module.bound_as = std::string(tokens[i + 1].text);
            module.aliased = true;
            i += 2;
        }
        modules.push_back(std::move(module));
        if (i < tokens.size() && is_op(tokens[i], ",")) ++i;
        else break;
    }
    return modules;
}

// The closing bracket matching the opening one at `open`, or tokens.size().
std::size_t matching_close(const std::vector<PyToken>& tokens, std::size_t open) {
    std::size_t depth = 0;
    for (std::size_t i = open; i < tokens.size(); ++i) {
        if (is_open_bracket(tokens[i])) ++depth;
        else if (is_close_bracket(tokens[i]) && --depth == 0) return i;
        else if (tokens[i].kind == PyTokenKind::newline && depth > 0 && i > open) {
            // f-string field separators only; statements never end inside brackets.
        }
    }
    return tokens.size();
}

// The top-level comma-separated arguments of a call whose '(' is at `open`: [begin, end) token ranges.
std::vector<std::pair<std::size_t, std::size_t>> call_arguments(const std::vector<PyToken>& tokens, std::size_t open,
                                                                std::size_t close) {
    std::vector<std::pair<std::size_t, std::size_t>> arguments;
    std::size_t depth = 0;
    std::size_t begin = open + 1;
    for (std::size_t i = open + 1; i < close; ++i) {
        if (is_open_bracket(tokens[i])) ++depth;
        else if (is_close_bracket(tokens[i]) && depth > 0) --depth;
        else if (depth == 0 && is_op(tokens[i], ",")) {
            arguments.emplace_back(begin, i);
            begin = i + 1;
        }
    }
    if (begin < close) arguments.emplace_back(begin, close);
    return arguments;
}

bool is_obfuscation_name(std::string_view name) {
    static constexpr std::array<std::string_view, 24> kNames{
        "chr", "bytes", "bytearray", "b64decode", "b32decode", "b16decode", "b85decode", "a85decode",
        "urlsafe_b64decode", "decodebytes", "decodestring", "fromhex", "unhexlify", "a2b_base64", "a2b_hex",
        "decompress", "codecs", "decode", "translate", "maketrans", "reversed", "rot13", "base64", "zlib"};
    return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

class PythonRules {
public:
    PythonRules(const detail::PyTokens& tokenized, FindingSink& sink, int depth)
        : tokenized_(tokenized), sink_(sink), depth_(depth) {}

    void run() {
        collect_bindings(tokenized_.tokens);
        scan(tokenized_.tokens);
        scan(tokenized_.fstring_field_tokens);
    }

private:
    const Policy& policy() const { return sink_.policy(); }

    void report(std::string_view rule, const PyToken& at, std::string message, const Subject& subject = {}) {
        sink_.add(rule, at.line, at.column, std::move(message), subject);
    }

    static Subject module_subject(std::string_view module) {
        return {Subject::Kind::module, std::string(module), std::string(module)};
    }

    static Subject call_subject(std::string_view written, std::string_view qualified) {
        return {Subject::Kind::call, std::string(written), std::string(qualified)};
    }

    // ----- pre-pass: what names stand for

    // Imports and simple assignments bind names to modules, members and builtins (`o = os`, `e = eval`,
    // `m = __import__("os")`); assignments of literal-only expressions give names a constant string value;
    // assignments from obfuscating expressions taint a name.
    void collect_bindings(const std::vector<PyToken>& tokens) {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            if (is_name(tokens[i], "import") && !is_from_import(tokens, i)) {
                for (const auto& module : parse_import(tokens, i))
                    aliases_[module.bound_as] = module.aliased ? module.dotted : std::string(root_of(module.dotted));
            } else if (is_name(tokens[i], "from") && (i == 0 || !is_name(tokens[i - 1], "raise") )) {
                collect_from_import(tokens, i);
            }
            if (!tokens[i].starts_logical_line || tokens[i].kind != PyTokenKind::name) continue;
            if (i + 2 >= tokens.size()) continue;
            const bool plain = is_op(tokens[i + 1], "=");
            const bool augmented = is_op(tokens[i + 1], "+") && is_op(tokens[i + 2], "=");
            if (!plain && !augmented) continue;
            const std::size_t value_begin = i + (plain ? 2 : 3);
            std::size_t value_end = value_begin;
            while (value_end < tokens.size() && !ends_statement(tokens[value_end])) ++value_end;
            const std::string name(tokens[i].text);
            if (value_begin >= value_end) continue;
            if (const auto value = constant_string(tokens, value_begin, value_end)) {
                constants_[name] = augmented && constants_.contains(name) ? constants_[name] + *value : *value;
                continue;
            }
            constants_.erase(name);
            if (plain) {
                if (const auto target = resolve_expression(tokens, value_begin, value_end)) aliases_[name] = *target;
            }
            if (has_obfuscation(tokens, value_begin, value_end)) tainted_.insert(name);
        }
    }

    static bool is_from_import(const std::vector<PyToken>& tokens, std::size_t import_at) {
        for (std::size_t k = import_at; k-- > 0 && !ends_statement(tokens[k]);)
            if (is_name(tokens[k], "from")) return true;
        return false;
    }

    void collect_from_import(const std::vector<PyToken>& tokens, std::size_t at) {
        std::size_t i = at + 1;
        if (i >= tokens.size() || tokens[i].kind != PyTokenKind::name) return;
        std::string dotted(tokens[i].text);
        ++i;
        while (i + 1 < tokens.size() && is_op(tokens[i], ".") && tokens[i + 1].kind == PyTokenKind::name) {
            dotted += "." + std::string(tokens[i + 1].text);
            i += 2;
        }
        if (i >= tokens.size() || !is_name(tokens[i], "import")) return;
        for (++i; i < tokens.size() && !ends_statement(tokens[i]); ++i) {
            if (tokens[i].kind != PyTokenKind::name || is_name(tokens[i], "as")) continue;
            if (is_name(tokens[i - 1], "as")) continue;
            std::string bound(tokens[i].text);
            if (i + 2 < tokens.size() && is_name(tokens[i + 1], "as") && tokens[i + 2].kind == PyTokenKind::name)
                bound = std::string(tokens[i + 2].text);
            aliases_[bound] = dotted + "." + std::string(tokens[i].text);
        }
    }

    // `name` -> what it stands for ("os", "os.system", "eval"); itself when unbound.
    std::string qualify(std::string_view name) const {
        const auto found = aliases_.find(std::string(name));
        return found == aliases_.end() ? std::string(name) : found->second;
    }

    // The dotted chain starting at `i` (a name not after a dot): "o.path.join" and where it ends.
    std::pair<std::string, std::size_t> chain_at(const std::vector<PyToken>& tokens, std::size_t i) const {
        std::string written(tokens[i].text);
        std::size_t end = i + 1;
        while (end + 1 < tokens.size() && is_op(tokens[end], ".") && tokens[end + 1].kind == PyTokenKind::name) {
            written += "." + std::string(tokens[end + 1].text);
            end += 2;
        }
        return {written, end};
    }

    std::string qualify_chain(std::string_view written) const {
        const std::string_view root = root_of(written);
        return qualify(root) + std::string(written.substr(root.size()));
    }

    // What an expression stands for when it is a module, member or builtin: `os`, `os.path`,
    // `__import__("os")`, `importlib.import_module("o" + "s")`, `__builtins__`.
    std::optional<std::string> resolve_expression(const std::vector<PyToken>& tokens, std::size_t begin,
                                                  std::size_t end) const {
        if (begin >= end || tokens[begin].kind != PyTokenKind::name) return std::nullopt;
        const auto [written, chain_end] = chain_at(tokens, begin);
        const std::string qualified = qualify_chain(written);
        if (chain_end == end) {
            if (is_interesting_target(qualified)) return qualified;
            return std::nullopt;
        }
        if (chain_end < end && is_op(tokens[chain_end], "(") && is_import_call(qualified)) {
            const std::size_t close = matching_close(tokens, chain_end);
            if (close + 1 != end) return std::nullopt;
            const auto arguments = call_arguments(tokens, chain_end, close);
            if (arguments.empty()) return std::nullopt;
            return constant_string(tokens, arguments[0].first, arguments[0].second);
        }
        return std::nullopt;
    }

    static bool is_import_call(std::string_view qualified) {
        return qualified == "__import__" || qualified == "builtins.__import__" ||
               qualified == "importlib.import_module" || qualified == "importlib.__import__";
    }

    static bool is_interesting_target(std::string_view qualified) {
        static constexpr std::array<std::string_view, 14> kRoots{
            "os", "posix", "nt", "sys", "subprocess", "builtins", "__builtins__", "importlib", "socket", "shutil",
            "ctypes", "pty", "pickle", "marshal"};
        static constexpr std::array<std::string_view, 7> kBuiltins{"eval", "exec", "compile", "__import__",
                                                                   "getattr", "globals", "open"};
        return std::find(kRoots.begin(), kRoots.end(), root_of(qualified)) != kRoots.end() ||
               std::find(kBuiltins.begin(), kBuiltins.end(), qualified) != kBuiltins.end();
    }

    // The value of an expression made only of string literals, `chr(<int>)`, names with a constant value,
    // `+`, parentheses, `[::-1]` and `"".join([...])`; nullopt for anything else.
    std::optional<std::string> constant_string(const std::vector<PyToken>& tokens, std::size_t begin,
                                               std::size_t end, std::vector<std::size_t>* piece_ends = nullptr) const {
        std::string value;
        std::size_t i = begin;
        bool expect_operand = true;
        while (i < end) {
            const PyToken& token = tokens[i];
            if (!expect_operand) {
                if (!is_op(token, "+")) return std::nullopt;
                expect_operand = true;
                ++i;
                continue;
            }
            std::optional<std::string> piece;
            std::size_t next = i + 1;
            if (token.kind == PyTokenKind::string) {
                piece = python_literal_value(token);
                // Adjacent literals concatenate: "o" "s".
                while (piece && next < end && tokens[next].kind == PyTokenKind::string) {
                    const auto more = python_literal_value(tokens[next]);
                    if (!more) return std::nullopt;
                    if (piece_ends) piece_ends->push_back(value.size() + piece->size());
                    *piece += *more;
                    ++next;
                }
            } else if (is_op(token, "(")) {
                const std::size_t close = matching_close(tokens, i);
                if (close >= end || nesting_ >= kMaxParentheses) return std::nullopt;
                ++nesting_;
                piece = constant_string(tokens, i + 1, close, nullptr);
                --nesting_;
                next = close + 1;
            } else if (is_name(token, "chr") && i + 3 < end && is_op(tokens[i + 1], "(") &&
                       tokens[i + 2].kind == PyTokenKind::number && is_op(tokens[i + 3], ")")) {
                const std::string digits(tokens[i + 2].text);
                if (digits.size() > 7 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
                piece.emplace();
                append_utf8(*piece, static_cast<std::uint32_t>(std::stoul(digits)));
                next = i + 4;
            } else if (token.kind == PyTokenKind::string || token.kind == PyTokenKind::name) {
                const auto found = constants_.find(std::string(token.text));
                if (found != constants_.end()) piece = found->second;
                // "".join(["o", "s"]) and "".join(("o", "s"))
            }
            if (!piece && token.kind == PyTokenKind::string) return std::nullopt;
            if (!piece) return std::nullopt;
            // A `.join([...])` on a literal separator.
            if (next + 2 < end && is_op(tokens[next], ".") && is_name(tokens[next + 1], "join") && is_op(tokens[next + 2], "(")) {
                const std::size_t close = matching_close(tokens, next + 2);
                if (close >= end) return std::nullopt;
                std::size_t list_begin = next + 3;
                std::size_t list_end = close;
                if (list_begin < list_end && (is_op(tokens[list_begin], "[") || is_op(tokens[list_begin], "("))) {
                    if (matching_close(tokens, list_begin) + 1 != list_end) return std::nullopt;
                    ++list_begin;
                    --list_end;
                }
                std::string joined;
                bool first = true;
                if (nesting_ >= kMaxParentheses) return std::nullopt;
                for (const auto& [a, b] : call_arguments(tokens, list_begin - 1, list_end)) {
                    ++nesting_;
                    const auto element = constant_string(tokens, a, b, nullptr);
                    --nesting_;
                    if (!element) return std::nullopt;
                    if (!first) joined += *piece;
                    first = false;
                    if (piece_ends && !joined.empty()) piece_ends->push_back(value.size() + joined.size());
                    joined += *element;
                }
                piece = joined;
                next = close + 1;
            }
            // "metsys"[::-1]
            if (next + 6 <= end && is_op(tokens[next], "[") && is_op(tokens[next + 1], ":") &&
                is_op(tokens[next + 2], ":") && is_op(tokens[next + 3], "-") &&
                tokens[next + 4].kind == PyTokenKind::number && tokens[next + 4].text == "1" &&
                is_op(tokens[next + 5], "]")) {
                std::reverse(piece->begin(), piece->end());
                if (piece_ends) piece_ends->push_back(value.size() + 1);  // a reversed word counts as split
                next += 6;
            }
            if (piece_ends && !value.empty()) piece_ends->push_back(value.size());
            value += *piece;
            expect_operand = false;
            i = next;
        }
        if (expect_operand) return std::nullopt;
        return value;
    }

    // True when the expression uses chr/base64/bytes/reversal/codecs or a tainted name.
    bool has_obfuscation(const std::vector<PyToken>& tokens, std::size_t begin, std::size_t end) const {
        for (std::size_t i = begin; i < end && i < tokens.size(); ++i) {
            const PyToken& token = tokens[i];
            if (token.kind == PyTokenKind::name && (is_obfuscation_name(token.text) || tainted_.contains(std::string(token.text))))
                return true;
            // `from base64 import b64decode as d`: the alias decodes too.
            if (token.kind == PyTokenKind::name && !(i > begin && is_op(tokens[i - 1], "."))) {
                const std::string qualified = qualify(token.text);
                if (qualified != token.text &&
                    (is_obfuscation_name(last_component(qualified)) || is_obfuscation_name(root_of(qualified))))
                    return true;
            }
            if (is_op(token, "[") && i + 4 < end && is_op(tokens[i + 1], ":") && is_op(tokens[i + 2], ":") &&
                is_op(tokens[i + 3], "-"))
                return true;
            if (token.kind == PyTokenKind::string) {
                const auto value = python_literal_value(token);
                if (value && (*value == "rot13" || *value == "rot_13" || *value == "base64" || *value == "hex")) return true;
            }
        }
        return false;
    }

    // ----- the checks

    void check_module(std::string_view dotted, const PyToken& at) {
        const std::string_view root = root_of(dotted);
        const Subject subject = module_subject(dotted);
        const std::string name(dotted);
        if (module_listed(policy().deny_modules, dotted))
            report("denied-module", at, "imports " + name + ", which the policy denies", subject);
        if (root == "socket") {
            report("import-socket", at, "imports " + name + ": raw network access from generated code" + std::string(kNoNetwork), subject);
        } else if (root == "requests") {
            report("import-requests", at, "imports " + name + ": HTTP requests from generated code" + std::string(kNoNetwork), subject);
        } else if (root == "urllib" || root == "urllib2" || root == "urllib3") {
            report("import-urllib", at, "imports " + name + ": URL fetching from generated code" + std::string(kNoNetwork), subject);
        } else if (root == "ctypes" || root == "_ctypes" || root == "cffi") {
            report("import-ctypes", at, "imports " + name + ": calls C functions and touches raw memory, around every "
                                        "Python-level check", subject);
        } else if (root == "pty" || root == "multiprocessing" || root == "signal" || root == "pexpect" || root == "sh" ||
                   root == "plumbum" || root == "_posixsubprocess" || root == "posix") {
            report("import-process", at, "imports " + name + ": starts, signals or controls other processes", subject);
        } else if (root == "http" || root == "ftplib" || root == "smtplib" || root == "telnetlib" || root == "poplib" ||
                   root == "imaplib" || root == "nntplib" || root == "xmlrpc" || root == "socketserver" || root == "ssl" ||
                   root == "httpx" || root == "aiohttp" || root == "paramiko" || root == "websocket" ||
                   root == "websockets" || root == "webbrowser" || root == "pycurl" || root == "asyncssh" ||
                   root == "httplib2" || root == "scapy") {
            report("import-network", at, "imports " + name + ": a network client or server" + std::string(kNoNetwork), subject);
        } else if (root == "pickle" || root == "cPickle" || root == "_pickle" || root == "marshal" || root == "shelve" ||
                   root == "dill" || root == "cloudpickle") {
            report("import-serialization", at, "imports " + name + ": loading its data runs arbitrary code", subject);
        } else if (root == "shutil") {
            report("import-shutil", at, "imports shutil: deletes and moves whole directory trees", subject);
        } else if (root == "importlib") {
            report("import-importlib", at, "imports " + name + ": loads modules by computed names, hidden from these checks", subject);
        } else if (root == "code" || root == "codeop" || root == "runpy" || root == "imp" || root == "zipimport" ||
                   root == "pkgutil") {
            report("import-interpreter", at, "imports " + name + ": runs or loads code by name, around these checks", subject);
        } else if (root == "builtins" || root == "__builtin__") {
            report("builtins-access", at, "imports " + name + ": reaches eval, exec and __import__ by another name", subject);
        } else if (root == "inspect" || root == "gc") {
            report("import-introspection", at, "imports " + name + ": reaches frames and every live object, a step "
                                               "around restrictions", subject);
        }
    }

    // A member of a dangerous module, reached as `os.system` (through any alias) or imported by name.
    void check_member(std::string_view qualified, std::string_view written, const PyToken& at, bool imported) {
        const std::string_view root = root_of(qualified);
        if (qualified.size() <= root.size()) return;
        const std::string_view rest = qualified.substr(root.size() + 1);
        const std::string_view member = root_of(rest);
        const Subject subject = call_subject(written, qualified);
        const std::string what = imported ? "imports " + std::string(member) + " from " + std::string(root)
                                          : "uses " + std::string(written);
        if (root == "os" || root == "posix" || root == "nt") {
            if (member == "system")
                report(imported ? "import-os-system" : "os-system", at,
                       what + ": runs a shell command, outside the Python code under test", subject);
            else if (member == "popen")
                report("os-popen", at, what + ": runs a shell command and reads its output", subject);
            else if (is_exec_family(member))
                report("os-exec", at, what + ": starts another program (or replaces this one with it)", subject);
            else if (member == "fork" || member == "forkpty" || member == "kill" || member == "killpg" ||
                     member == "abort" || member == "setuid" || member == "setgid" || member == "seteuid" ||
                     member == "setsid" || member == "setresuid" || member == "pidfd_open" || member == "plock" ||
                     member == "register_at_fork" || member == "tcsetpgrp")
                report("os-process", at, what + ": controls processes outside the code under test", subject);
            else if (member == "remove" || member == "unlink" || member == "rmdir" || member == "removedirs" ||
                     member == "rename" || member == "renames" || member == "replace" || member == "chmod" ||
                     member == "chown" || member == "lchown" || member == "truncate" || member == "symlink" ||
                     member == "link" || member == "mkfifo" || member == "mknod" || member == "chroot" ||
                     member == "putenv" || member == "unsetenv" || member == "fchmod" || member == "fchown")
                report("os-file-mutation", at, what + ": changes the file system or environment", subject);
            else if (member == "environ" || member == "getenv" || member == "environb" || member == "getenvb")
                report("os-environ", at, what + ": reads environment variables, where secrets live (the sandbox "
                                                "passes none unless asked)", subject);
        } else if (root == "sys") {
            if (member == "modules" || member == "_getframe" || member == "settrace" || member == "setprofile" ||
                member == "_current_frames" || member == "meta_path" || member == "path_hooks" ||
                member == "addaudithook" || member == "_getframemodulename" || member == "__dict__")
                report("sys-internals", at, what + ": reaches loaded modules or interpreter frames, around the import "
                                                   "checks", subject);
        } else if (root == "importlib") {
            if (member == "import_module" || member == "__import__" || member == "util" || member == "machinery" ||
                member == "reload")
                report("importlib-import-module", at,
                       (imported ? what : "calls " + std::string(written)) +
                           ": loads a module by a computed name, hidden from these checks",
                       subject);
        } else if (root == "asyncio") {
            if (member == "create_subprocess_exec" || member == "create_subprocess_shell")
                report("os-exec", at, what + ": starts another program", subject);
            else if (member == "open_connection" || member == "start_server" || member == "open_unix_connection")
                report("import-network", at, what + ": opens network connections" + std::string(kNoNetwork), subject);
        } else if (root == "builtins" || root == "__builtins__") {
            report("builtins-access", at, what + ": reaches the builtins by another name, around the other checks", subject);
        }
    }

    void check_from_import(const std::vector<PyToken>& tokens, std::size_t at) {
        std::size_t i = at + 1;
        if (i >= tokens.size() || tokens[i].kind != PyTokenKind::name) return;  // relative: a local module
        const PyToken& root = tokens[i];
        std::string dotted(root.text);
        ++i;
        while (i + 1 < tokens.size() && is_op(tokens[i], ".") && tokens[i + 1].kind == PyTokenKind::name) {
            dotted += "." + std::string(tokens[i + 1].text);
            i += 2;
        }
        if (i >= tokens.size() || !is_name(tokens[i], "import")) return;  // `raise X from Y`, `yield from`
        check_module(dotted, root);
        for (++i; i < tokens.size() && !ends_statement(tokens[i]); ++i) {
            if (is_op(tokens[i], "*") && (dotted == "os" || dotted == "posix"))
                report("import-os-system", tokens[i], "imports * from " + dotted + ": brings system, popen and the exec "
                                                      "family in under their bare names", module_subject(dotted));
            if (tokens[i].kind != PyTokenKind::name || is_name(tokens[i], "as")) continue;
            if (i > 0 && is_name(tokens[i - 1], "as")) continue;
            const std::string member = dotted + "." + std::string(tokens[i].text);
            if (module_listed(policy().deny_modules, member))
                report("denied-module", tokens[i], "imports " + member + ", which the policy denies", module_subject(member));
            check_member(member, member, tokens[i], true);
        }
    }

    // Checks a literal path given to a file call: system files, home directories, climbing out, absolute paths.
    void check_path(std::string_view path, const PyToken& at, bool is_open, const Subject& subject) {
        const std::string quoted = "'" + std::string(path) + "'";
        if (is_open && starts_with_path(path, "/etc")) {
            report("open-etc", at, "opens " + quoted + ": reads system configuration such as accounts (the sandbox "
                                   "shows its own minimal /etc)", subject);
            return;
        }
        if (is_open && starts_with_path(path, "/proc")) {
            report("open-proc", at, "opens " + quoted + ": reads process and kernel information such as environment "
                                    "variables and memory maps", subject);
            return;
        }
        switch (detail::classify_path(path)) {
            case detail::PathKind::system:
                report("open-system-path", at, "file access to " + quoted + ": system files, devices or home "
                                               "directories, outside the code's working directory", subject);
                break;
            case detail::PathKind::parent:
                report("open-parent-path", at, "file access to " + quoted + ": climbs out of the working directory",
                       subject);
                break;
            case detail::PathKind::absolute:
                report("open-absolute-path", at, "file access to the absolute path " + quoted +
                                                 ": generated code should stay in its working directory", subject);
                break;
            case detail::PathKind::inside: break;
        }
    }

    // open(...) and other file calls with a literal path and mode.
    void check_file_call(const std::vector<PyToken>& tokens, std::size_t name_at, std::size_t open_paren,
                         std::string_view written, std::string_view qualified) {
        const bool is_open = last_component(qualified) == "open" || qualified == "open";
        const std::size_t close = matching_close(tokens, open_paren);
        const auto arguments = call_arguments(tokens, open_paren, std::min(close, tokens.size()));
        std::optional<std::string> path;
        std::optional<std::string> mode;
        for (std::size_t a = 0; a < arguments.size(); ++a) {
            const auto [begin, end] = arguments[a];
            if (begin >= end) continue;
            if (end - begin >= 3 && tokens[begin].kind == PyTokenKind::name && is_op(tokens[begin + 1], "=")) {
                const auto value = constant_string(tokens, begin + 2, end);
                if (tokens[begin].text == "mode") mode = value;
                if (tokens[begin].text == "file" || tokens[begin].text == "path") path = value;
                continue;
            }
            if (a == 0) path = constant_string(tokens, begin, end);
            if (a == 1 && is_open) mode = constant_string(tokens, begin, end);
        }
        // f"/etc/{name}": the fixed part still says where the file is.
        if (!path && !arguments.empty() && tokens[arguments[0].first].kind == PyTokenKind::string)
            path = std::string(detail::string_literal_body(tokens[arguments[0].first].text));
        const Subject subject = call_subject(written, qualified);
        const PyToken& at = tokens[name_at];
        if (path) check_path(*path, at, is_open, subject);
        if (is_open && mode && mode->find_first_of("wax+") != std::string::npos)
            report("open-write", at, "opens a file for writing (mode '" + *mode + "'): generated code under test "
                                     "should not write files", subject);
    }

    // eval/exec/compile: a fixed string is scanned as code; an obfuscated one blocks.
    void check_code_call(const std::vector<PyToken>& tokens, std::size_t name_at, std::size_t open_paren,
                         std::string_view written, std::string_view qualified, std::string_view builtin) {
        const PyToken& at = tokens[name_at];
        const Subject subject = call_subject(written, qualified);
        if (builtin == "eval")
            report("call-eval", at, "calls eval(): evaluates a string as code, which no static check can see (a "
                                    "warning under standard: the sandbox contains it)", subject);
        else if (builtin == "exec")
            report("call-exec", at, "calls exec(): runs a string as statements, which no static check can see", subject);
        else
            report("call-compile", at, "calls compile(): builds code objects from strings at run time", subject);
        const std::size_t close = matching_close(tokens, open_paren);
        const auto arguments = call_arguments(tokens, open_paren, std::min(close, tokens.size()));
        if (arguments.empty()) return;
        const auto [begin, end] = arguments[0];
        if (const auto code = constant_string(tokens, begin, end)) {
            scan_nested(*code, Language::python, sink_, depth_, at.line, at.column,
                        "in the string that " + std::string(builtin) + "() runs");
            return;
        }
        if (has_obfuscation(tokens, begin, end))
            report("obfuscated-code", at, "calls " + std::string(builtin) + "() on text decoded or assembled at run "
                                          "time (chr, base64, bytes, reversal): hides what it runs", subject);
    }

    // getattr(obj, name): a dangerous module or a dangerous name, by a fixed or computed string.
    void check_getattr(const std::vector<PyToken>& tokens, std::size_t name_at, std::size_t open_paren,
                       std::string_view written, std::string_view qualified) {
        const PyToken& at = tokens[name_at];
        const Subject subject = call_subject(written, qualified);
        const std::size_t close = matching_close(tokens, open_paren);
        const auto arguments = call_arguments(tokens, open_paren, std::min(close, tokens.size()));
        if (arguments.size() < 2) return;
        const auto target = resolve_expression(tokens, arguments[0].first, arguments[0].second);
        const auto attribute = constant_string(tokens, arguments[1].first, arguments[1].second);
        if (target && attribute) {
            check_member(*target + "." + *attribute, *target + "." + *attribute, at, false);
            if (is_dangerous_word(*attribute))
                report("dynamic-lookup", at, "looks up " + *target + "." + *attribute + " by name: reaches a dangerous "
                                             "function around the attribute checks", subject);
        } else if (attribute && is_dangerous_word(*attribute) && *attribute != "open") {
            report("dynamic-lookup", at, "looks up the attribute '" + *attribute + "' by name: a dangerous function "
                                         "reached around the attribute checks", subject);
        } else if (target && !attribute) {
            report("dynamic-lookup", at, "looks up an attribute of " + *target + " by a computed name: any of its "
                                         "functions, unseen by these checks", subject);
        }
        if (!attribute && has_obfuscation(tokens, arguments[1].first, arguments[1].second))
            report("obfuscated-code", at, "looks up an attribute by a name decoded or assembled at run time (chr, "
                                          "base64, bytes, reversal): hides what it reaches", subject);
    }

    void check_import_call(const std::vector<PyToken>& tokens, std::size_t name_at, std::size_t open_paren,
                           std::string_view written, std::string_view qualified) {
        const PyToken& at = tokens[name_at];
        const Subject subject = call_subject(written, qualified);
        if (qualified == "__import__" || qualified == "builtins.__import__")
            report("dunder-import", at, "calls __import__(): imports a module by a computed name, hidden from these "
                                        "checks", subject);
        const std::size_t close = matching_close(tokens, open_paren);
        const auto arguments = call_arguments(tokens, open_paren, std::min(close, tokens.size()));
        if (arguments.empty()) return;
        if (const auto module = constant_string(tokens, arguments[0].first, arguments[0].second)) {
            check_module(*module, at);
            // __import__("os").system(...)
            if (close + 2 < tokens.size() && is_op(tokens[close + 1], ".") && tokens[close + 2].kind == PyTokenKind::name)
                check_member(*module + "." + std::string(tokens[close + 2].text), std::string(written) + "(...)." +
                             std::string(tokens[close + 2].text), at, false);
        } else if (has_obfuscation(tokens, arguments[0].first, arguments[0].second)) {
            report("obfuscated-code", at, "imports a module whose name is decoded or assembled at run time: hides "
                                          "which module it loads", subject);
        }
    }

    // globals()[...] = ..., globals().update(...), vars(x)[...], and lookups of dangerous names in them.
    void check_namespace_call(const std::vector<PyToken>& tokens, std::size_t name_at, std::size_t open_paren,
                              std::string_view written, std::string_view qualified) {
        const PyToken& at = tokens[name_at];
        const Subject subject = call_subject(written, qualified);
        const std::size_t close = matching_close(tokens, open_paren);
        if (close + 1 >= tokens.size()) {
            report("call-globals", at, "calls " + std::string(written) + "(): reads module state", subject);
            return;
        }
        const PyToken& after = tokens[close + 1];
        if (is_op(after, "[")) {
            const std::size_t subscript_close = matching_close(tokens, close + 1);
            const auto key = constant_string(tokens, close + 2, subscript_close);
            const bool assigned = subscript_close + 1 < tokens.size() && is_op(tokens[subscript_close + 1], "=") &&
                                  !(subscript_close + 2 < tokens.size() && is_op(tokens[subscript_close + 2], "="));
            if (assigned) {
                report("globals-mutation", at, "writes into " + std::string(written) + "(): rebinds names behind the "
                                               "code's back, a common step around restrictions", subject);
            } else if ((key && (is_dangerous_word(*key) || key->starts_with("__"))) ||
                       has_obfuscation(tokens, close + 2, subscript_close)) {
                report("dynamic-lookup", at, "looks up " + (key ? "'" + *key + "'" : std::string("a computed name")) +
                                                 " in " + std::string(written) + "(): reaches builtins and modules "
                                                 "by name, around these checks", subject);
            } else {
                report("call-globals", at, "calls " + std::string(written) + "(): reads module state", subject);
            }
            return;
        }
        if (is_op(after, ".") && close + 2 < tokens.size() &&
            (is_name(tokens[close + 2], "update") || is_name(tokens[close + 2], "__setitem__") ||
             is_name(tokens[close + 2], "setdefault") || is_name(tokens[close + 2], "pop") ||
             is_name(tokens[close + 2], "clear"))) {
            report("globals-mutation", at, "changes " + std::string(written) + "() with ." +
                                               std::string(tokens[close + 2].text) + ": rebinds names behind the "
                                               "code's back", subject);
            return;
        }
        report("call-globals", at, "calls " + std::string(written) + "(): reads and may rewrite module state, a "
                                   "common step around restrictions", subject);
    }

    void check_call(const std::vector<PyToken>& tokens, std::size_t name_at, std::size_t open_paren,
                    const std::string& written, const std::string& qualified) {
        if (call_listed(policy().deny_calls, written, qualified))
            report("denied-call", tokens[name_at], "calls " + written + ", which the policy denies",
                   call_subject(written, qualified));
        const std::string_view builtin = qualified.starts_with("builtins.") ? std::string_view(qualified).substr(9)
                                                                            : std::string_view(qualified);
        if (builtin == "eval" || builtin == "exec" || builtin == "compile") {
            check_code_call(tokens, name_at, open_paren, written, qualified, builtin);
        } else if (is_import_call(qualified)) {
            check_import_call(tokens, name_at, open_paren, written, qualified);
        } else if (builtin == "getattr" || builtin == "setattr" || builtin == "delattr" || builtin == "hasattr") {
            check_getattr(tokens, name_at, open_paren, written, qualified);
        } else if (builtin == "globals" || builtin == "locals" || builtin == "vars") {
            check_namespace_call(tokens, name_at, open_paren, written, qualified);
        } else if (builtin == "breakpoint") {
            report("call-breakpoint", tokens[name_at], "calls breakpoint(): starts a debugger that reads commands from "
                                                       "stdin", call_subject(written, qualified));
        } else if (builtin == "open" || qualified == "io.open" || qualified == "os.open" || qualified == "codecs.open" ||
                   last_component(qualified) == "Path" || qualified == "os.listdir" || qualified == "os.scandir" ||
                   qualified == "os.walk" || qualified == "glob.glob" || qualified == "io.FileIO" ||
                   qualified == "os.stat" || qualified == "os.path.exists" || qualified == "os.mkdir" ||
                   qualified == "os.makedirs" || qualified == "shutil.copy" || qualified == "shutil.copyfile") {
            check_file_call(tokens, name_at, open_paren, written, qualified);
        }
    }

    // A bare reference to eval, exec or __import__ without a call: an alias (`e = eval`) hides the call.
    void check_bare_reference(const PyToken& token) {
        const std::string_view name = token.text;
        const Subject subject = call_subject(name, name);
        if (name == "eval")
            report("call-eval", token, "refers to eval without calling it: a renamed eval hides the call", subject);
        else if (name == "exec")
            report("call-exec", token, "refers to exec without calling it: a renamed exec hides the call", subject);
        else if (name == "__import__")
            report("dunder-import", token, "refers to __import__ without calling it: a renamed __import__ hides the "
                                           "import", subject);
    }

    // A dangerous name spelled in pieces ("o" + "s", "".join(["sys", "tem"]), "metsys"[::-1], chr(111) + ...).
    void check_assembled(const std::vector<PyToken>& tokens, std::size_t i, std::size_t& skip_to) {
        std::size_t end = i;
        std::size_t depth = 0;
        while (end < tokens.size() && !ends_statement(tokens[end])) {
            if (is_open_bracket(tokens[end])) ++depth;
            else if (is_close_bracket(tokens[end])) {
                if (depth == 0) break;
                --depth;
            } else if (depth == 0 && (is_op(tokens[end], ",") || is_op(tokens[end], "=") || is_op(tokens[end], ":"))) {
                break;
            }
            ++end;
        }
        // The longest prefix that is a constant string expression (within 64 tokens of the longest candidate,
        // so a long expression costs linear time, not quadratic).
        for (std::size_t stop = end; stop > i && end - stop < 64; --stop) {
            std::vector<std::size_t> piece_ends;
            const auto value = constant_string(tokens, i, stop, &piece_ends);
            if (!value) continue;
            if (!piece_ends.empty()) {
                if (const auto word = split_dangerous_word(*value, piece_ends))
                    report("assembled-name", tokens[i], "assembles '" + *word + "' from pieces ('" + *value +
                                                        "'): spelling a dangerous name in parts only serves to "
                                                        "hide it from checks");
            }
            skip_to = stop;
            return;
        }
    }

    void scan(const std::vector<PyToken>& tokens) {
        std::size_t assembled_skip = 0;
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const PyToken& token = tokens[i];
            // Only a literal that is concatenated, joined or sliced can be a piece of an assembled name.
            const bool continues = i + 1 < tokens.size() &&
                                   (is_op(tokens[i + 1], "+") || is_op(tokens[i + 1], "[") ||
                                    tokens[i + 1].kind == PyTokenKind::string ||
                                    (is_op(tokens[i + 1], ".") && i + 2 < tokens.size() && is_name(tokens[i + 2], "join")) ||
                                    (is_name(token, "chr") && i + 4 < tokens.size() && is_op(tokens[i + 4], "+")));
            if (i >= assembled_skip && continues && (token.kind == PyTokenKind::string || is_name(token, "chr"))) {
                const bool statement = token.starts_logical_line && token.kind == PyTokenKind::string;
                if (!statement) check_assembled(tokens, i, assembled_skip);
            }
            if (token.kind == PyTokenKind::string) {
                check_dunder_string(tokens, i);
                continue;
            }
            if (token.kind != PyTokenKind::name) continue;
            const bool after_dot = i > 0 && is_op(tokens[i - 1], ".");
            const bool after_def = i > 0 && (is_name(tokens[i - 1], "def") || is_name(tokens[i - 1], "class"));
            const std::string_view name = token.text;

            if (name == "import") {
                if (!is_from_import(tokens, i))
                    for (const auto& module : parse_import(tokens, i)) check_module(module.dotted, *module.root);
                continue;
            }
            if (name == "from") {
                check_from_import(tokens, i);
                continue;
            }
            if (name == "subprocess")
                report("subprocess", token, "uses subprocess: starts other programs from generated code",
                       module_subject("subprocess"));
            check_dunder_name(token, name);
            if (after_dot || after_def) continue;
            if (i > 0 && (is_name(tokens[i - 1], "import") || is_name(tokens[i - 1], "as"))) continue;

            if (!worth_resolving(tokens, i)) continue;
            const auto [written, chain_end] = chain_at(tokens, i);
            const std::string qualified = qualify_chain(written);
            const bool in_import_list = i > 0 && (is_op(tokens[i - 1], ",") || is_op(tokens[i - 1], "(")) &&
                                        is_from_import_list(tokens, i);
            if (in_import_list) continue;
            // A bare name bound to a member (`from os import system`) was reported at its import.
            if (chain_end > i + 1) check_member(qualified, written, token, false);
            const bool called = chain_end < tokens.size() && is_op(tokens[chain_end], "(");
            if (called) {
                check_call(tokens, i, chain_end, written, qualified);
            } else if (chain_end == i + 1 && !is_op_at(tokens, i + 1, "=") ) {
                check_bare_reference(token);
            }
        }
    }

    // Most names are locals and plain calls; only names bound by imports or assignments to modules, the
    // roots and builtins the rules know, and calls the policy lists can lead to a finding. Resolving a dotted
    // chain costs allocations, so the rest are skipped here (the scanner's throughput depends on it).
    bool worth_resolving(const std::vector<PyToken>& tokens, std::size_t i) const {
        const std::string_view name = tokens[i].text;
        static constexpr std::array<std::string_view, 33> kNames{
            "os", "posix", "nt", "sys", "importlib", "asyncio", "builtins", "__builtins__", "subprocess", "shutil",
            "io", "codecs", "glob", "pathlib", "Path", "eval", "exec", "compile", "__import__", "getattr", "setattr",
            "delattr", "hasattr", "globals", "locals", "vars", "breakpoint", "open", "socket", "ctypes", "pty",
            "pickle", "marshal"};
        if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
        if (aliases_.find(name) != aliases_.end()) return true;
        const bool called = i + 1 < tokens.size() && (is_op(tokens[i + 1], "(") || is_op(tokens[i + 1], "."));
        return called && !policy().deny_calls.empty();
    }

    static bool is_op_at(const std::vector<PyToken>& tokens, std::size_t i, std::string_view text) {
        return i < tokens.size() && is_op(tokens[i], text);
    }

    static bool is_from_import_list(const std::vector<PyToken>& tokens, std::size_t i) {
        for (std::size_t k = i; k-- > 0 && !ends_statement(tokens[k]);)
            if (is_name(tokens[k], "import")) return true;
        return false;
    }

    void check_dunder_name(const PyToken& token, std::string_view name) {
        if (name == "__builtins__" || name == "__builtin__") {
            report("builtins-access", token, "accesses __builtins__: reaches eval, exec and __import__ indirectly, "
                                             "around the other checks");
        } else if (name == "__subclasses__") {
            report("dunder-subclasses", token, "accesses __subclasses__: walks the class tree to reach objects the code "
                                               "never imported (a classic escape)");
        } else if (name == "__globals__" || name == "func_globals") {
            report("dunder-globals", token, "accesses __globals__: reaches a function's module namespace and the "
                                            "builtins behind it");
        } else if (name == "__code__" || name == "__mro__" || name == "__bases__" || name == "__base__" ||
                   name == "__closure__" || name == "__loader__" || name == "__reduce__" || name == "__reduce_ex__" ||
                   name == "f_globals" || name == "f_locals" || name == "f_back" || name == "f_builtins" ||
                   name == "gi_frame" || name == "gi_code" || name == "cr_frame" || name == "ag_frame" ||
                   name == "tb_frame" || name == "co_code" || name == "CodeType" || name == "__getattribute__" ||
                   name == "__self__" || name == "im_func") {
            report("dunder-escape", token, "accesses " + std::string(name) + ": interpreter internals used to climb "
                                           "from any object to modules and builtins it never imported");
        }
    }

    // "__globals__" as a string in code (not a docstring): a lookup by name of a dunder escape.
    void check_dunder_string(const std::vector<PyToken>& tokens, std::size_t i) {
        const PyToken& token = tokens[i];
        // Only a subscript looks a name up: ns["__builtins__"]; a dict key or an argument is just text.
        const bool subscript = i >= 2 && is_op(tokens[i - 1], "[") &&
                               (tokens[i - 2].kind == PyTokenKind::name || is_close_bracket(tokens[i - 2]) ||
                                tokens[i - 2].kind == PyTokenKind::string);
        if (!subscript) return;
        const auto value = python_literal_value(token);
        if (!value || value->size() < 5 || !value->starts_with("__") || !value->ends_with("__")) return;
        static constexpr std::array<std::string_view, 11> kEscapes{
            "__builtins__", "__import__", "__subclasses__", "__globals__", "__code__", "__mro__", "__bases__",
            "__base__", "__loader__", "__closure__", "__getattribute__"};
        if (std::find(kEscapes.begin(), kEscapes.end(), *value) != kEscapes.end())
            report("dynamic-lookup", token, "names " + *value + " in a string: a lookup by name reaches it around the "
                                            "attribute checks");
    }

    const detail::PyTokens& tokenized_;
    FindingSink& sink_;
    int depth_;
    static constexpr int kMaxParentheses = 16;  // ((("o" + "s"))) is unwrapped; deeper nesting is not a constant
    mutable int nesting_ = 0;
    std::map<std::string, std::string, std::less<>> aliases_;
    std::map<std::string, std::string, std::less<>> constants_;
    std::set<std::string, std::less<>> tainted_;
};

// ---------------------------------------------------------------------------------------------------------
// JavaScript

using detail::JsToken;
using detail::JsTokenKind;

using detail::js_literal_value;

class JavaScriptRules {
public:
    JavaScriptRules(std::string_view code, FindingSink& sink, int depth)
        : tokens_(detail::JsTokenizer(code).run()), sink_(sink), depth_(depth) {}

    void run() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) visit(i);
        detail::scan_javascript_file_access(tokens_, sink_);
    }

private:
    bool punct(std::size_t i, std::string_view text) const {
        return i < tokens_.size() && tokens_[i].kind == JsTokenKind::punct && tokens_[i].text == text;
    }
    bool word(std::size_t i, std::string_view text) const {
        return i < tokens_.size() && tokens_[i].kind == JsTokenKind::name && tokens_[i].text == text;
    }

    void report(std::string_view rule, const JsToken& at, std::string message, const Subject& subject = {}) {
        sink_.add(rule, at.line, at.column, std::move(message), subject);
    }

    std::size_t matching_close(std::size_t open) const {
        std::size_t depth = 0;
        for (std::size_t i = open; i < tokens_.size(); ++i) {
            if (punct(i, "(") || punct(i, "[") || punct(i, "{")) ++depth;
            else if ((punct(i, ")") || punct(i, "]") || punct(i, "}")) && --depth == 0) return i;
        }
        return tokens_.size();
    }

    std::optional<std::string> constant_string(std::size_t begin, std::size_t end, std::vector<std::size_t>* ends) const {
        return detail::js_constant_string(tokens_, begin, end, ends);
    }

    bool has_obfuscation(std::size_t begin, std::size_t end) const {
        return detail::js_has_obfuscation(tokens_, begin, end);
    }

    void check_module(std::string_view raw, const JsToken& at) {
        std::string_view module = raw;
        if (module.starts_with("node:")) module.remove_prefix(5);
        const std::string_view root = module.substr(0, module.find('/'));
        const Subject subject{Subject::Kind::module, std::string(module), std::string(root)};
        const std::string name(raw);
        if (module_listed(sink_.policy().deny_modules, module) || module_listed(sink_.policy().deny_modules, root))
            report("denied-module", at, "loads " + name + ", which the policy denies", subject);
        if (root == "child_process" || root == "cluster")
            report("js-child-process", at, "loads " + name + ": starts other programs from generated code", subject);
        else if (root == "fs")
            report("js-fs", at, "loads " + name + ": reads and writes files (a warning under standard: reading "
                                  "stdin needs it, and the paths each fs call is given are checked)", subject);
        else if (root == "net" || root == "http" || root == "https" || root == "http2" || root == "dgram" ||
                 root == "tls" || root == "dns")
            report("js-network", at, "loads " + name + ": network access from generated code" + std::string(kNoNetwork), subject);
        else if (root == "vm" || root == "worker_threads" || root == "v8" || root == "inspector" || root == "module" ||
                 root == "repl")
            report("js-vm", at, "loads " + name + ": runs code in new contexts or threads, around these checks", subject);
    }

    // require(x), import(x): a fixed name is checked, a computed one is a finding of its own.
    void check_loader_call(std::size_t name_at, std::size_t open) {
        const std::size_t close = matching_close(open);
        const JsToken& at = tokens_[name_at];
        if (const auto module = constant_string(open + 1, std::min(close, tokens_.size()), nullptr)) {
            check_module(*module, close == open + 2 ? tokens_[open + 1] : at);
            return;
        }
        if (has_obfuscation(open + 1, std::min(close, tokens_.size())))
            report("js-obfuscated-code", at, "loads a module whose name is decoded at run time: hides which module");
        else
            report("js-dynamic-require", at, std::string(at.text) + "() of a computed name: loads a module these checks "
                                             "cannot see");
    }

    void check_eval_call(std::size_t name_at, std::size_t open, std::string_view rule, std::string_view what) {
        const std::size_t close = matching_close(open);
        const JsToken& at = tokens_[name_at];
        std::size_t first_end = open + 1;
        while (first_end < close && first_end < tokens_.size() && !punct(first_end, ",")) {
            if (punct(first_end, "(") || punct(first_end, "[") || punct(first_end, "{")) {
                first_end = matching_close(first_end);
                if (first_end >= close) break;
            }
            ++first_end;
        }
        first_end = std::min(first_end, close);
        if (rule == "js-eval-timer") {
            if (!(open + 1 < tokens_.size() && tokens_[open + 1].kind == JsTokenKind::string)) return;
            rule = "js-eval";
        }
        report(rule, at, std::string(what), {Subject::Kind::call, std::string(at.text), std::string(at.text)});
        if (const auto code = constant_string(open + 1, first_end, nullptr)) {
            scan_nested(*code, Language::javascript, sink_, depth_, at.line, at.column,
                        "in the string that " + std::string(at.text) + " runs");
        } else if (has_obfuscation(open + 1, first_end)) {
            report("js-obfuscated-code", at, std::string(at.text) + " runs text decoded at run time (fromCharCode, "
                                             "atob, Buffer, escapes): hides what it runs");
        }
    }

    void visit(std::size_t i) {
        const JsToken& token = tokens_[i];
        const bool after_dot = i > 0 && punct(i - 1, ".");
        if (token.kind == JsTokenKind::string) {
            // import x from "fs"; import "fs"; export * from "fs"
            if (token.text.front() != '`' && i >= 1 && (word(i - 1, "from") || word(i - 1, "import")))
                if (const auto module = js_literal_value(token)) check_module(*module, token);
            std::vector<std::size_t> ends;
            if (i + 1 < tokens_.size() && punct(i + 1, "+") && (i == 0 || !punct(i - 1, "+"))) {
                std::size_t end = i;
                while (end < tokens_.size() && (tokens_[end].kind == JsTokenKind::string || punct(end, "+"))) ++end;
                while (end > i && punct(end - 1, "+")) --end;
                if (const auto value = constant_string(i, end, &ends))
                    if (const auto found = split_dangerous_word(*value, ends))
                        report("js-obfuscated-code", token, "assembles '" + *found + "' from pieces ('" + *value +
                                                            "'): spelling a dangerous name in parts only serves to hide it");
            }
            return;
        }
        if (token.kind != JsTokenKind::name) return;
        const std::string_view name = token.text;
        const bool called = punct(i + 1, "(");
        if (called && !after_dot && call_listed(sink_.policy().deny_calls, name, name))
            report("denied-call", token, "calls " + std::string(name) + ", which the policy denies",
                   {Subject::Kind::call, std::string(name), std::string(name)});
        if (called && after_dot && i >= 2 && tokens_[i - 2].kind == JsTokenKind::name) {
            const std::string written = std::string(tokens_[i - 2].text) + "." + std::string(name);
            if (call_listed(sink_.policy().deny_calls, written, written))
                report("denied-call", tokens_[i - 2], "calls " + written + ", which the policy denies",
                       {Subject::Kind::call, written, written});
        }
        if (name == "require" && called && !after_dot) {
            check_loader_call(i, i + 1);
        } else if (name == "import" && called && !after_dot) {
            check_loader_call(i, i + 1);
        } else if (name == "eval" && called && !after_dot) {
            check_eval_call(i, i + 1, "js-eval", "calls eval(): runs a string as code, which no static check can see");
        } else if ((name == "setTimeout" || name == "setInterval") && called && !after_dot) {
            check_eval_call(i, i + 1, "js-eval-timer", std::string(name) + " with a string: runs the string as code");
        } else if (name == "Function" && called && (!after_dot || (i >= 2 && word(i - 2, "globalThis")))) {
            check_eval_call(i, i + 1, "js-function-constructor",
                            "calls the Function constructor: builds a function from a string, which no static check "
                            "can see");
        } else if (name == "constructor" && after_dot && punct(i + 1, ".") && word(i + 2, "constructor")) {
            report("js-obfuscated-code", token, ".constructor.constructor reaches the Function constructor: code "
                                                "from a string, hidden from the eval checks");
        } else if (name == "constructor" && after_dot && i >= 2 && word(i - 2, "module") && punct(i + 1, ".")) {
            report("js-dynamic-require", token, "module.constructor reaches Node's module loader: loads modules these "
                                                "checks cannot see");
        } else if ((name == "fetch" && called &&
                    (!after_dot || (i >= 2 && (word(i - 2, "globalThis") || word(i - 2, "window") || word(i - 2, "global"))))) ||
                   ((name == "WebSocket" || name == "XMLHttpRequest" || name == "EventSource") && !after_dot)) {
            report("js-network", token, "uses " + std::string(name) + ": network access from generated code" +
                                            std::string(kNoNetwork));
        } else if (name == "process" && !after_dot && punct(i + 1, ".")) {
            if (word(i + 2, "env"))
                report("js-process-env", token, "reads process.env: looks for secrets in the environment (the sandbox "
                                                "passes none unless asked)");
            else if (word(i + 2, "binding") || word(i + 2, "_linkedBinding") || word(i + 2, "dlopen") ||
                     word(i + 2, "kill"))
                report("js-process-binding", token, "uses process." + std::string(tokens_[i + 2].text) +
                                                        ": reaches Node's internals or other processes directly");
            else if (word(i + 2, "mainModule"))
                report("js-dynamic-require", token, "uses process.mainModule: reaches require() around these checks");
        } else if ((name == "globalThis" || name == "global" || name == "window" || name == "self") && !after_dot &&
                   punct(i + 1, "[")) {
            const std::size_t close = matching_close(i + 1);
            const auto key = constant_string(i + 2, std::min(close, tokens_.size()), nullptr);
            if (!key || *key == "eval" || *key == "Function" || *key == "require" || *key == "process")
                report("js-global-lookup", token, std::string(name) + "[" + (key ? "'" + *key + "'" : std::string("...")) +
                                                      "]: reaches eval, require or process by a computed name");
        }
    }

    std::vector<JsToken> tokens_;
    FindingSink& sink_;
    int depth_;
};

// ---------------------------------------------------------------------------------------------------------
// bash

using detail::ShToken;
using detail::ShTokenKind;

std::string_view basename_of(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_assignment_word(const ShToken& token) {
    const std::size_t equals = token.value.find('=');
    if (equals == std::string::npos || equals == 0) return false;
    return std::all_of(token.value.begin(), token.value.begin() + static_cast<std::ptrdiff_t>(equals), [](char c) {
        return detail::python_tokenizer_internal::is_identifier_char(c);
    });
}

bool is_dev_network_path(std::string_view value) {
    return value.starts_with("/dev/tcp/") || value.starts_with("/dev/udp/");
}

// Paths outside the workspace that a bash answer has no business reading or writing.
bool is_system_path(std::string_view value) {
    static constexpr std::array<std::string_view, 9> kRoots{"/etc/", "/proc/", "/sys/", "/root", "/home/",
                                                            "/var/", "/boot/", "/run/", "/dev/"};
    static constexpr std::array<std::string_view, 8> kHarmless{"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random",
                                                               "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/"};
    if (std::any_of(kHarmless.begin(), kHarmless.end(), [&](std::string_view h) { return value.starts_with(h); }))
        return false;
    if (is_dev_network_path(value)) return false;
    return std::any_of(kRoots.begin(), kRoots.end(), [&](std::string_view root) { return value.starts_with(root); }) ||
           value == "/etc" || value == "/proc" || value.starts_with("~/.") || value.starts_with("$HOME/.") ||
           value.starts_with("${HOME}/.") || value.starts_with("../") || value == "..";
}

bool is_harmless_write_target(std::string_view value) {
    return value == "/dev/null" || value == "/dev/stdout" || value == "/dev/stderr" || value.starts_with("/dev/fd/") ||
           value.starts_with("/tmp/") || value == "/tmp" || value.starts_with("&");
}

class BashRules {
public:
    BashRules(std::string_view code, FindingSink& sink, int depth)
        : tokens_(detail::ShTokenizer(code).run()), sink_(sink), depth_(depth) {}

    void run();

private:
    void report(std::string_view rule, const ShToken& at, std::string message, const Subject& subject = {}) {
        sink_.add(rule, at.line, at.column, std::move(message), subject);
    }

    void check_rm(std::size_t at) {
        bool recursive = false;
        bool options_done = false;
        std::optional<std::string> root_target;
        for (std::size_t i = at + 1; i < tokens_.size() && tokens_[i].kind == ShTokenKind::word; ++i) {
            const std::string& argument = tokens_[i].value;
            if (!options_done && argument == "--") {
                options_done = true;
            } else if (!options_done && argument.starts_with("--")) {
                recursive = recursive || argument == "--recursive";
            } else if (!options_done && argument.starts_with("-") && argument.size() > 1) {
                recursive = recursive || argument.find_first_of("rR") != std::string::npos;
            } else if (argument == "/" || argument == "/*") {
                root_target = argument;
            }
        }
        if (recursive && root_target)
            report("bash-rm-root", tokens_[at], "runs rm recursively on " + *root_target + ": deletes every file it can reach");
    }

    // The command's arguments: system paths read or written, interpreters given code with -c.
    void check_arguments(std::size_t at, std::string_view command) {
        const bool interpreter_c = command == "python" || command == "python3" || command == "python2" ||
                                   command == "node" || command == "sh" || command == "bash" || command == "zsh" ||
                                   command == "dash";
        for (std::size_t i = at + 1; i < tokens_.size() && tokens_[i].kind == ShTokenKind::word; ++i) {
            const ShToken& argument = tokens_[i];
            if (is_system_path(argument.value))
                report("bash-outside-workspace", argument, std::string(command) + " on " + argument.value +
                                                           ": system files, devices or home directories, outside the "
                                                           "workspace");
            else if (argument.value.starts_with("of=/") && !is_harmless_write_target(argument.value.substr(3)))
                report("bash-write-absolute", argument, "dd writes to " + argument.value.substr(3) +
                                                        ": outside the workspace");
            if (interpreter_c && (argument.value == "-c" || argument.value == "-e") && i + 1 < tokens_.size() &&
                tokens_[i + 1].kind == ShTokenKind::word) {
                const Language language = command.starts_with("python") ? Language::python
                                          : command == "node"            ? Language::javascript
                                                                         : Language::bash;
                const ShToken& code = tokens_[i + 1];
                if (code.value.find("$(...)") != std::string::npos || code.value.find('$') != std::string::npos) {
                    if (language == Language::bash)
                        report("bash-eval", code, std::string(command) + " -c with a computed string: runs text these "
                                                  "checks cannot see");
                }
                scan_nested(code.value, language, sink_, depth_, code.line, code.column,
                            "in the code that " + std::string(command) + " " + argument.value + " runs");
                ++i;
            }
        }
    }

    std::vector<ShToken> tokens_;
    FindingSink& sink_;
    int depth_;
};

void BashRules::run() {
    static constexpr std::array<std::string_view, 11> kCommandSeparators{
        ";", "&", "&&", "||", "|", "|&", "(", "$(", ";;", "{", "!"};
    static constexpr std::array<std::string_view, 9> kCommandPrefixes{
        "then", "do", "else", "elif", "if", "while", "until", "time", "!"};
    static constexpr std::array<std::string_view, 7> kWrappers{"sudo", "env", "exec", "command", "nohup", "xargs", "doas"};
    static constexpr std::array<std::string_view, 18> kNetworkTools{
        "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp", "ftp", "rsync", "nmap",
        "aria2c", "lynx", "links", "w3m", "httpie"};
    static constexpr std::array<std::string_view, 8> kDecoders{"base64", "xxd", "openssl", "gunzip", "zcat", "uudecode",
                                                               "rev", "tr"};
    static constexpr std::array<std::string_view, 12> kInterpreters{
        "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node", "php", "source"};
    static constexpr std::array<std::string_view, 22> kPrivileged{
        "sudo", "su", "doas", "mount", "umount", "chroot", "nsenter", "unshare", "insmod", "modprobe", "rmmod",
        "iptables", "nft", "shutdown", "reboot", "halt", "poweroff", "systemctl", "crontab", "mkfs", "fdisk", "useradd"};
    const auto in = [](const auto& list, std::string_view value) {
        return std::find(list.begin(), list.end(), value) != list.end();
    };

    bool command_position = true;
    bool after_pipe = false;
    bool pipeline_fetches = false;  // a network tool or a decoder earlier in this pipeline
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
        const ShToken& token = tokens_[i];
        if (token.kind == ShTokenKind::newline) {
            command_position = true;
            after_pipe = false;
            pipeline_fetches = false;
            continue;
        }
        if (token.kind == ShTokenKind::op) {
            const bool redirect = token.value.find_first_of("<>") != std::string::npos;
            // <(...) and >(...): process substitution, a command list of its own.
            if (redirect && i + 1 < tokens_.size() && tokens_[i + 1].kind == ShTokenKind::op && tokens_[i + 1].value == "(") {
                command_position = true;
                continue;
            }
            if (redirect && i + 1 < tokens_.size() && tokens_[i + 1].kind == ShTokenKind::word) {
                const ShToken& target = tokens_[i + 1];
                const bool writes = token.value.find('>') != std::string::npos && token.value != "<>";
                if (is_dev_network_path(target.value))
                    report("bash-dev-tcp", target, "redirects to " + target.value + ": bash opens a network connection" +
                                                       std::string(kNoNetwork));
                else if (is_system_path(target.value))
                    report("bash-outside-workspace", target, std::string(writes ? "writes to " : "reads from ") +
                                                                 target.value + ": outside the workspace");
                else if (writes && target.value.starts_with("/") && !is_harmless_write_target(target.value))
                    report("bash-write-absolute", target, "writes to " + target.value + ": outside the workspace");
                ++i;  // the redirect's target is not a command
                continue;
            }
            if (token.value == "|" || token.value == "|&") {
                after_pipe = true;
            } else if (token.value != "(" && token.value != "$(") {
                after_pipe = false;
                if (token.value != ")") pipeline_fetches = false;
            }
            command_position = in(kCommandSeparators, token.value) || command_position;
            continue;
        }
        if (!token.quoted && is_dev_network_path(token.value))
            report("bash-dev-tcp", token, "uses " + token.value + ": bash opens a network connection" + std::string(kNoNetwork));
        if (!command_position) continue;
        if (!token.quoted && (in(kCommandPrefixes, token.value) || token.value == "{")) continue;
        if (is_assignment_word(token)) continue;
        const std::string_view command = basename_of(token.value);
        const Subject subject{Subject::Kind::call, std::string(command), token.value};
        if (call_listed(sink_.policy().deny_calls, command, token.value))
            report("denied-call", token, "runs " + std::string(command) + ", which the policy denies", subject);
        if (in(kPrivileged, command) || command.starts_with("mkfs."))
            report("bash-privileged", token, "runs " + std::string(command) + ": needs privileges or changes the "
                                                                             "machine, not the workspace", subject);
        if (in(kWrappers, command)) continue;  // the next word is the command that really runs
        command_position = false;
        if (in(kNetworkTools, command)) {
            report("bash-network-tool", token, "runs " + std::string(command) + ": network access from generated code" +
                                                   std::string(kNoNetwork), subject);
            pipeline_fetches = true;
        }
        if (in(kDecoders, command)) pipeline_fetches = true;
        if (after_pipe && in(kInterpreters, command)) {
            if (pipeline_fetches)
                report("bash-pipe-to-shell", token, "pipes downloaded or decoded text into " + std::string(command) +
                                                        ": runs code nobody has read", subject);
            else
                report("bash-eval", token, "pipes text into " + std::string(command) + ": runs code built at run time",
                       subject);
        }
        if (command == "eval")
            report("bash-eval", token, "runs eval: executes a string built at run time", subject);
        if (command == "rm") check_rm(i);
        if (command == "tee" || command == "cp" || command == "mv" || command == "ln" || command == "install" ||
            command == "chmod" || command == "chown" || command == "touch" || command == "mkdir") {
            for (std::size_t k = i + 1; k < tokens_.size() && tokens_[k].kind == ShTokenKind::word; ++k)
                if (tokens_[k].value.starts_with("/") && !is_harmless_write_target(tokens_[k].value) &&
                    !is_system_path(tokens_[k].value))
                    report("bash-write-absolute", tokens_[k], std::string(command) + " on " + tokens_[k].value +
                                                              ": outside the workspace", subject);
        }
        check_arguments(i, command);
    }
}

void scan_code(std::string_view code, Language language, FindingSink& sink, int depth) {
    switch (language) {
        case Language::python: {
            const auto tokenized = detail::tokenize_python(code);
            PythonRules(tokenized, sink, depth).run();
            break;
        }
        case Language::javascript: JavaScriptRules(code, sink, depth).run(); break;
        case Language::bash: BashRules(code, sink, depth).run(); break;
        case Language::c:
        case Language::cpp: detail::scan_c_family(code, detail::c_rules(), sink); break;
        case Language::go: detail::scan_c_family(code, detail::go_rules(), sink); break;
        case Language::rust: detail::scan_c_family(code, detail::rust_rules(), sink); break;
        case Language::java: detail::scan_c_family(code, detail::java_rules(), sink); break;
        case Language::typescript:
            JavaScriptRules(code, sink, depth).run();
            detail::scan_typescript_directives(code, sink);
            break;
    }
}

}  // namespace

namespace detail {

const Rule* find_rule(std::string_view id) noexcept {
    for (const auto table : rule_tables())
        for (const auto& rule : table)
            if (rule.id == id) return &rule;
    return nullptr;
}

}  // namespace detail

SafetyScanner::SafetyScanner(Policy policy) : policy_(std::move(policy)) {
    check_rule_ids(policy_.allow_rules, "allow_rules");
    check_rule_ids(policy_.deny_rules, "deny_rules");
}

std::vector<Finding> SafetyScanner::scan(std::string_view code, Language language) const {
    FindingSink sink(policy_);
    scan_code(code, language, sink, 0);
    return std::move(sink).take();
}

bool SafetyScanner::blocks(const std::vector<Finding>& findings) noexcept {
    return std::any_of(findings.begin(), findings.end(),
                       [](const Finding& finding) { return finding.severity == Severity::block; });
}

std::vector<RuleInfo> SafetyScanner::rules() {
    std::vector<RuleInfo> result;
    for_each_rule([&](const Rule& rule) {
        RuleInfo info;
        info.id = rule.id;
        info.language = rule.language;
        info.tutorial = severity_of(rule.levels[0]);
        info.standard = severity_of(rule.levels[1]);
        info.strict = severity_of(rule.levels[2]);
        info.summary = rule.summary;
        result.push_back(info);
    });
    return result;
}

}  // namespace e2beval

// The scanner's rules for Python, on the tokenizer's tokens (so words inside strings and comments never match):
// imports of dangerous modules (a table: module -> rule), members of os, sys, importlib, asyncio and builtins (a
// table: member -> rule), eval/exec/compile (a fixed string is scanned as code), __import__ and getattr by name,
// namespaces (globals(), vars()), sandbox-escape dunders, file calls on paths outside the working directory, and
// names hidden by aliases, assembly from pieces or decoding (chr, base64, reversal).
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "analysis/python_tokenizer.hpp"
#include "analysis/scan_support.hpp"
#include "analysis/scripting_rules.hpp"
#include "analysis/string_escapes.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval::detail {

namespace {

bool ends_statement(const PyToken& token) { return token.kind == PyTokenKind::newline || is_op(token, ";"); }

bool is_open_bracket(const PyToken& token) { return is_op(token, "(") || is_op(token, "[") || is_op(token, "{"); }
bool is_close_bracket(const PyToken& token) { return is_op(token, ")") || is_op(token, "]") || is_op(token, "}"); }

std::string_view root_of(std::string_view dotted) { return dotted.substr(0, dotted.find('.')); }

bool starts_with_path(std::string_view path, std::string_view directory) {
    return path.starts_with(directory) && (path.size() == directory.size() || path[directory.size()] == '/');
}

// The string value of a literal token when it is fixed (no f-string fields); raw strings keep their backslashes.
std::optional<std::string> python_literal_value(const PyToken& token) {
    if (token.kind != PyTokenKind::string) return std::nullopt;
    const std::size_t quote = token.text.find_first_of("'\"");
    const std::string_view prefix = token.text.substr(0, quote);
    const std::string_view body = string_literal_body(token.text);
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

// The top-level arguments of the call whose '(' is at `open`, up to its matching ')'.
std::vector<std::pair<std::size_t, std::size_t>> call_arguments(const std::vector<PyToken>& tokens, std::size_t open) {
    return call_arguments(tokens, open, std::min(matching_close(tokens, open), tokens.size()));
}

bool is_obfuscation_name(std::string_view name) {
    static constexpr std::array<std::string_view, 24> kNames{
        "chr", "bytes", "bytearray", "b64decode", "b32decode", "b16decode", "b85decode", "a85decode",
        "urlsafe_b64decode", "decodebytes", "decodestring", "fromhex", "unhexlify", "a2b_base64", "a2b_hex",
        "decompress", "codecs", "decode", "translate", "maketrans", "reversed", "rot13", "base64", "zlib"};
    return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

// Names that reach the interpreter's internals from any object: a table, name -> rule.
struct DunderRule {
    std::string_view name;
    RuleId rule;
    std::string_view shown;  // the name the message gives, when not `name` itself
    std::string_view what;
};

constexpr std::string_view kBuiltinsWhat = "reaches eval, exec and __import__ indirectly, around the other checks";
constexpr std::string_view kGlobalsWhat = "reaches a function's module namespace and the builtins behind it";
constexpr std::string_view kEscapeWhat =
    "interpreter internals used to climb from any object to modules and builtins it never imported";

constexpr DunderRule kDunders[] = {
    {"__builtins__", "builtins-access", "", kBuiltinsWhat},
    {"__builtin__", "builtins-access", "__builtins__", kBuiltinsWhat},
    {"__subclasses__", "dunder-subclasses", "",
     "walks the class tree to reach objects the code never imported (a classic escape)"},
    {"__globals__", "dunder-globals", "", kGlobalsWhat},
    {"func_globals", "dunder-globals", "__globals__", kGlobalsWhat},
    {"__code__", "dunder-escape", "", kEscapeWhat},
    {"__mro__", "dunder-escape", "", kEscapeWhat},
    {"__bases__", "dunder-escape", "", kEscapeWhat},
    {"__base__", "dunder-escape", "", kEscapeWhat},
    {"__closure__", "dunder-escape", "", kEscapeWhat},
    {"__loader__", "dunder-escape", "", kEscapeWhat},
    {"__reduce__", "dunder-escape", "", kEscapeWhat},
    {"__reduce_ex__", "dunder-escape", "", kEscapeWhat},
    {"f_globals", "dunder-escape", "", kEscapeWhat},
    {"f_locals", "dunder-escape", "", kEscapeWhat},
    {"f_back", "dunder-escape", "", kEscapeWhat},
    {"f_builtins", "dunder-escape", "", kEscapeWhat},
    {"gi_frame", "dunder-escape", "", kEscapeWhat},
    {"gi_code", "dunder-escape", "", kEscapeWhat},
    {"cr_frame", "dunder-escape", "", kEscapeWhat},
    {"ag_frame", "dunder-escape", "", kEscapeWhat},
    {"tb_frame", "dunder-escape", "", kEscapeWhat},
    {"co_code", "dunder-escape", "", kEscapeWhat},
    {"CodeType", "dunder-escape", "", kEscapeWhat},
    {"__getattribute__", "dunder-escape", "", kEscapeWhat},
    {"__self__", "dunder-escape", "", kEscapeWhat},
    {"im_func", "dunder-escape", "", kEscapeWhat},
};
static_assert(all_rules_of(kDunders, Language::python));

class PythonRules {
public:
    PythonRules(const PyTokens& tokenized, FindingSink& sink, int depth)
        : tokenized_(tokenized), sink_(sink), depth_(depth) {}

    void run() {
        collect_bindings(tokenized_.tokens);
        scan(tokenized_.tokens);
        scan(tokenized_.fstring_field_tokens);
    }

private:
    const Policy& policy() const { return sink_.policy(); }

    void report(RuleId rule, const PyToken& at, std::string message, const Subject& subject = {}) {
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
        const Subject subject = module_subject(dotted);
        const std::string name(dotted);
        if (module_listed(policy().deny_modules, dotted))
            report("denied-module", at, "imports " + name + ", which the policy denies", subject);
        const ImportRule* row = python_import_rule(dotted);
        if (!row) return;
        report(row->rule, at, "imports " + name + ": " + std::string(row->what) + std::string(row->network ? kNoNetwork : ""),
               subject);
    }

    // A member of a dangerous module, reached as `os.system` (through any alias) or imported by name.
    void check_member(std::string_view qualified, std::string_view written, const PyToken& at, bool imported) {
        const std::string_view root = root_of(qualified);
        if (qualified.size() <= root.size()) return;
        const std::string_view member = root_of(qualified.substr(root.size() + 1));
        const PythonMemberRule* row = python_member_rule(root, member);
        if (!row) return;
        const std::string what = imported ? "imports " + std::string(member) + " from " + std::string(root)
                                          : std::string(row->verb) + " " + std::string(written);
        const RuleId rule = imported && row->rule_when_imported ? row->rule_when_imported : row->rule;
        report(rule, at, what + ": " + std::string(row->what) + std::string(row->network ? kNoNetwork : ""),
               call_subject(written, qualified));
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
        switch (classify_path(path)) {
            case PathKind::system:
                report("open-system-path", at, "file access to " + quoted + ": system files, devices or home "
                                               "directories, outside the code's working directory", subject);
                break;
            case PathKind::parent:
                report("open-parent-path", at, "file access to " + quoted + ": climbs out of the working directory",
                       subject);
                break;
            case PathKind::absolute:
                report("open-absolute-path", at, "file access to the absolute path " + quoted +
                                                 ": generated code should stay in its working directory", subject);
                break;
            case PathKind::inside: break;
        }
    }

    // open(...) and other file calls with a literal path and mode.
    void check_file_call(const std::vector<PyToken>& tokens, std::size_t name_at, std::size_t open_paren,
                         std::string_view written, std::string_view qualified) {
        const bool is_open = last_component(qualified) == "open" || qualified == "open";
        const auto arguments = call_arguments(tokens, open_paren);
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
            path = std::string(string_literal_body(tokens[arguments[0].first].text));
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
        const auto arguments = call_arguments(tokens, open_paren);
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
        const auto arguments = call_arguments(tokens, open_paren);
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
        const DunderRule* row = find_row(kDunders, [&](const DunderRule& candidate) { return candidate.name == name; });
        if (!row) return;
        report(row->rule, token, "accesses " + std::string(row->shown.empty() ? name : row->shown) + ": " +
                                     std::string(row->what));
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

    const PyTokens& tokenized_;
    FindingSink& sink_;
    int depth_;
    static constexpr int kMaxParentheses = 16;  // ((("o" + "s"))) is unwrapped; deeper nesting is not a constant
    mutable int nesting_ = 0;
    std::map<std::string, std::string, std::less<>> aliases_;
    std::map<std::string, std::string, std::less<>> constants_;
    std::set<std::string, std::less<>> tainted_;
};

}  // namespace

void scan_python(std::string_view code, FindingSink& sink, int depth) {
    const auto tokenized = tokenize_python(code);
    PythonRules(tokenized, sink, depth).run();
}

}  // namespace e2beval::detail

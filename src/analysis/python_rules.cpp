// The scanner's rules for Python, on the tokenizer's tokens (so words inside strings and comments never match):
// imports of dangerous modules (a table: module -> rule), members of os, sys, importlib, asyncio and builtins (a
// table: member -> rule), eval/exec/compile (a fixed string is scanned as code), __import__ and getattr by name,
// namespaces (globals(), vars()), sandbox-escape dunders, file calls on paths outside the working directory, and
// names hidden by aliases, assembly from pieces or decoding (chr, base64, reversal).
#include <algorithm>
#include <array>
#include <optional>

#include "analysis/python_names.hpp"
#include "analysis/scan_support.hpp"
#include "analysis/scripting_rules.hpp"

namespace e2beval::detail::python_scan {

namespace {

bool starts_with_path(std::string_view path, std::string_view directory) {
    return path.starts_with(directory) && (path.size() == directory.size() || path[directory.size()] == '/');
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
        : tokenized_(tokenized), sink_(sink), depth_(depth), names_(tokenized.tokens) {}

    void run() {
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


    // ----- the checks

    void check_module(std::string_view dotted, const PyToken& at) {
        const Subject subject = module_subject(dotted);
        const std::string name(dotted);
        if (module_listed(policy().deny_modules, dotted))
            report("denied-module", at, "imports " + name + ", which the policy denies", subject);
        const ImportRule* row = python_import_rule(dotted);
        if (!row) return;
        const std::string_view network = row->network ? kNoNetwork : "";
        report(row->rule, at, "imports " + name + ": " + std::string(row->what) + std::string(network), subject);
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
                const auto value = names_.constant_string(tokens, begin + 2, end);
                if (tokens[begin].text == "mode") mode = value;
                if (tokens[begin].text == "file" || tokens[begin].text == "path") path = value;
                continue;
            }
            if (a == 0) path = names_.constant_string(tokens, begin, end);
            if (a == 1 && is_open) mode = names_.constant_string(tokens, begin, end);
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
        if (const auto code = names_.constant_string(tokens, begin, end)) {
            scan_nested(*code, Language::python, sink_, depth_, at.line, at.column,
                        "in the string that " + std::string(builtin) + "() runs");
            return;
        }
        if (names_.has_obfuscation(tokens, begin, end))
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
        const auto target = names_.resolve_expression(tokens, arguments[0].first, arguments[0].second);
        const auto attribute = names_.constant_string(tokens, arguments[1].first, arguments[1].second);
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
        if (!attribute && names_.has_obfuscation(tokens, arguments[1].first, arguments[1].second))
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
        if (const auto module = names_.constant_string(tokens, arguments[0].first, arguments[0].second)) {
            check_module(*module, at);
            // __import__("os").system(...)
            if (close + 2 < tokens.size() && is_op(tokens[close + 1], ".") && tokens[close + 2].kind == PyTokenKind::name)
                check_member(*module + "." + std::string(tokens[close + 2].text), std::string(written) + "(...)." +
                             std::string(tokens[close + 2].text), at, false);
        } else if (names_.has_obfuscation(tokens, arguments[0].first, arguments[0].second)) {
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
            const auto key = names_.constant_string(tokens, close + 2, subscript_close);
            const bool assigned = subscript_close + 1 < tokens.size() && is_op(tokens[subscript_close + 1], "=") &&
                                  !(subscript_close + 2 < tokens.size() && is_op(tokens[subscript_close + 2], "="));
            if (assigned) {
                report("globals-mutation", at, "writes into " + std::string(written) + "(): rebinds names behind the "
                                               "code's back, a common step around restrictions", subject);
            } else if ((key && (is_dangerous_word(*key) || key->starts_with("__"))) ||
                       names_.has_obfuscation(tokens, close + 2, subscript_close)) {
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
        } else if (PythonNames::is_import_call(qualified)) {
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
            const auto value = names_.constant_string(tokens, i, stop, &piece_ends);
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
                if (!PythonNames::is_from_import(tokens, i))
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
            const auto [written, chain_end] = names_.chain_at(tokens, i);
            const std::string qualified = names_.qualify_chain(written);
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
        if (names_.is_alias(name)) return true;
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
    const PythonNames names_;  // what names stand for, read before the checks
};

}  // namespace

}  // namespace e2beval::detail::python_scan

namespace e2beval::detail {

void scan_python(std::string_view code, FindingSink& sink, int depth) {
    const auto tokenized = tokenize_python(code);
    python_scan::PythonRules(tokenized, sink, depth).run();
}

}  // namespace e2beval::detail

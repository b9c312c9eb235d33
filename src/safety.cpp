// SafetyScanner: rules on tokens of Python, JavaScript and bash, so words inside strings and comments never match.
// The findings are advice shown before the sandbox runs the code; the sandbox stays the security boundary.
#include "e2beval/safety.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <tuple>

#include "e2beval/error.hpp"
#include "python_tokenizer.hpp"

namespace e2beval {

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

namespace {

// ---------------------------------------------------------------------------------------------------------
// Rules

struct Rule {
    std::string_view id;
    PolicyPreset preset;  // the smallest preset that reports it; larger presets include smaller ones
    Severity severity;
};

// Presets are ordered tutorial < standard < strict. `tutorial` is exactly the ten checks of the tutorial's
// validate_and_run_code_e2b.py, so results stay comparable with it; as the tutorial checked only Python, the
// JavaScript and bash rules start at `standard`.
constexpr std::array<Rule, 25> kRules{{
    {"import-socket", PolicyPreset::tutorial, Severity::block},
    {"import-requests", PolicyPreset::tutorial, Severity::block},
    {"import-urllib", PolicyPreset::tutorial, Severity::block},
    {"os-system", PolicyPreset::tutorial, Severity::block},
    {"subprocess", PolicyPreset::tutorial, Severity::block},
    {"call-eval", PolicyPreset::tutorial, Severity::block},
    {"call-exec", PolicyPreset::tutorial, Severity::block},
    {"open-etc", PolicyPreset::tutorial, Severity::block},
    {"open-proc", PolicyPreset::tutorial, Severity::block},
    {"dunder-import", PolicyPreset::tutorial, Severity::block},
    {"import-os-system", PolicyPreset::standard, Severity::block},
    {"import-ctypes", PolicyPreset::standard, Severity::block},
    {"os-popen", PolicyPreset::standard, Severity::block},
    {"os-exec", PolicyPreset::standard, Severity::block},
    {"importlib-import-module", PolicyPreset::standard, Severity::block},
    {"builtins-access", PolicyPreset::standard, Severity::block},
    {"open-write", PolicyPreset::strict, Severity::block},
    {"open-absolute-path", PolicyPreset::strict, Severity::block},
    {"call-compile", PolicyPreset::strict, Severity::block},
    {"call-globals", PolicyPreset::strict, Severity::block},
    {"dunder-subclasses", PolicyPreset::strict, Severity::block},
    {"dunder-globals", PolicyPreset::strict, Severity::block},
    {"js-child-process", PolicyPreset::standard, Severity::block},
    {"js-eval", PolicyPreset::standard, Severity::block},
    {"js-process-env", PolicyPreset::standard, Severity::warning},
}};

constexpr std::array<Rule, 3> kBashRules{{
    {"bash-network-tool", PolicyPreset::standard, Severity::block},
    {"bash-dev-tcp", PolicyPreset::standard, Severity::block},
    {"bash-rm-root", PolicyPreset::standard, Severity::block},
}};

const Rule* find_rule(std::string_view id) noexcept {
    for (const auto& rule : kRules)
        if (rule.id == id) return &rule;
    for (const auto& rule : kBashRules)
        if (rule.id == id) return &rule;
    return nullptr;
}

void check_rule_ids(const std::vector<std::string>& ids, std::string_view list_name) {
    for (const auto& id : ids) {
        if (find_rule(id)) continue;
        std::string known;
        for (const auto& rule : kRules) known += (known.empty() ? "" : ", ") + std::string(rule.id);
        for (const auto& rule : kBashRules) known += ", " + std::string(rule.id);
        throw input_error("unknown safety rule \"" + id + "\" in " + std::string(list_name) + "; known rules: " + known);
    }
}

bool contains(const std::vector<std::string>& ids, std::string_view id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Applies the policy as findings are made: a denied rule is reported as block even outside its preset, and
// wins over allow (when a rule is on both lists, the safer reading is taken).
class FindingSink {
public:
    explicit FindingSink(const Policy& policy) : policy_(policy) {}

    void add(std::string_view rule_id, std::size_t line, std::size_t column, std::string message) {
        const Rule* rule = find_rule(rule_id);
        if (!rule) return;
        const bool denied = contains(policy_.deny_rules, rule_id);
        if (!denied) {
            if (contains(policy_.allow_rules, rule_id)) return;
            if (static_cast<int>(rule->preset) > static_cast<int>(policy_.preset)) return;
        }
        Finding finding;
        finding.rule = std::string(rule_id);
        finding.severity = denied ? Severity::block : rule->severity;
        finding.line = line;
        finding.column = column;
        finding.message = std::move(message);
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

constexpr std::string_view kNoNetwork = " (the sandbox has no network; this is advice)";

// ---------------------------------------------------------------------------------------------------------
// Python

using detail::PyToken;
using detail::PyTokenKind;

bool is_name(const PyToken& token, std::string_view text) {
    return token.kind == PyTokenKind::name && token.text == text;
}

bool is_op(const PyToken& token, std::string_view text) {
    return token.kind == PyTokenKind::op && token.text == text;
}

bool ends_statement(const PyToken& token) { return token.kind == PyTokenKind::newline || is_op(token, ";"); }

struct ImportedModule {
    std::string dotted;           // "urllib.request"
    const PyToken* root = nullptr;  // the token of its first component, where a finding points
    std::string bound_as;         // the name the import binds ("os", or the alias)
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
            i += 2;
        }
        modules.push_back(std::move(module));
        if (i < tokens.size() && is_op(tokens[i], ",")) ++i;
        else break;
    }
    return modules;
}

std::string_view root_of(std::string_view dotted) { return dotted.substr(0, dotted.find('.')); }

bool starts_with_path(std::string_view path, std::string_view directory) {
    return path.starts_with(directory) && (path.size() == directory.size() || path[directory.size()] == '/');
}

bool is_exec_family(std::string_view name) {
    return name.starts_with("exec") || name.starts_with("spawn") || name.starts_with("posix_spawn");
}

class PythonRules {
public:
    PythonRules(const detail::PyTokens& tokenized, FindingSink& sink) : tokenized_(tokenized), sink_(sink) {
        collect_aliases();
    }

    void run() {
        scan(tokenized_.tokens);
        scan(tokenized_.fstring_field_tokens);
    }

private:
    void collect_aliases() {
        for (std::size_t i = 0; i < tokenized_.tokens.size(); ++i) {
            if (!is_name(tokenized_.tokens[i], "import")) continue;
            for (const auto& module : parse_import(tokenized_.tokens, i)) {
                if (module.dotted == "os") os_names_.insert(module.bound_as);
                if (module.dotted == "importlib") importlib_names_.insert(module.bound_as);
            }
        }
    }

    void report(std::string_view rule, const PyToken& at, std::string message) {
        sink_.add(rule, at.line, at.column, std::move(message));
    }

    void check_module(const std::string& dotted, const PyToken& at) {
        const std::string_view root = root_of(dotted);
        if (root == "socket")
            report("import-socket", at, "imports " + dotted + ": raw network access from generated code" + std::string(kNoNetwork));
        else if (root == "requests")
            report("import-requests", at, "imports " + dotted + ": HTTP requests from generated code" + std::string(kNoNetwork));
        else if (root == "urllib" || root == "urllib2" || root == "urllib3")
            report("import-urllib", at, "imports " + dotted + ": URL fetching from generated code" + std::string(kNoNetwork));
        else if (root == "ctypes")
            report("import-ctypes", at, "imports " + dotted + ": calls C functions and touches raw memory, around every "
                                        "Python-level check");
    }

    // `os.system` (through any alias of os) or `from os import system`: the same danger, two spellings.
    void check_os_member(std::string_view member, const PyToken& at, std::string_view os_name, bool imported) {
        const std::string what = imported ? "imports " + std::string(member) + " from os"
                                          : "uses " + std::string(os_name) + "." + std::string(member);
        if (member == "system")
            report(imported ? "import-os-system" : "os-system", at,
                   what + ": runs a shell command, outside the Python code under test");
        else if (member == "popen")
            report("os-popen", at, what + ": runs a shell command and reads its output");
        else if (is_exec_family(member))
            report("os-exec", at, what + ": starts another program (or replaces this one with it)");
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
            if (tokens[i].kind != PyTokenKind::name || is_name(tokens[i], "as")) continue;
            if (i > 0 && is_name(tokens[i - 1], "as")) continue;
            if (dotted == "os") check_os_member(tokens[i].text, tokens[i], "os", true);
            if (dotted == "importlib" && tokens[i].text == "import_module")
                report("importlib-import-module", tokens[i],
                       "imports importlib.import_module: loads a module by a computed name, hidden from these checks");
        }
    }

    // open(...) with a literal path: system files, absolute paths and write modes.
    void check_open(const std::vector<PyToken>& tokens, std::size_t at) {
        const PyToken& open_token = tokens[at];
        std::optional<std::string_view> path;
        std::optional<std::string_view> mode;
        std::size_t depth = 0;
        std::size_t argument = 0;
        bool argument_start = true;
        for (std::size_t i = at + 2; i < tokens.size(); ++i) {
            const PyToken& token = tokens[i];
            if (depth == 0 && is_op(token, ")")) break;
            if (is_op(token, "(") || is_op(token, "[") || is_op(token, "{")) ++depth;
            if ((is_op(token, ")") || is_op(token, "]") || is_op(token, "}")) && depth > 0) --depth;
            if (depth == 0 && is_op(token, ",")) {
                ++argument;
                argument_start = true;
                continue;
            }
            if (argument_start && token.kind == PyTokenKind::string) {
                if (argument == 0) path = detail::string_literal_body(token.text);
                if (argument == 1) mode = detail::string_literal_body(token.text);
            }
            if (argument_start && is_name(token, "mode") && i + 2 < tokens.size() && is_op(tokens[i + 1], "=") &&
                tokens[i + 2].kind == PyTokenKind::string)
                mode = detail::string_literal_body(tokens[i + 2].text);
            if (argument_start && is_name(token, "file") && i + 2 < tokens.size() && is_op(tokens[i + 1], "=") &&
                tokens[i + 2].kind == PyTokenKind::string)
                path = detail::string_literal_body(tokens[i + 2].text);
            argument_start = false;
        }
        if (path) {
            const std::string quoted = "'" + std::string(*path) + "'";
            if (starts_with_path(*path, "/etc"))
                report("open-etc", open_token, "opens " + quoted + ": reads system configuration such as accounts "
                                               "(the sandbox shows its own minimal /etc)");
            else if (starts_with_path(*path, "/proc"))
                report("open-proc", open_token, "opens " + quoted + ": reads process and kernel information such as "
                                                "environment variables and memory maps");
            else if (path->starts_with("/"))
                report("open-absolute-path", open_token, "opens the absolute path " + quoted +
                                                         ": generated code should stay in its working directory");
        }
        if (mode && mode->find_first_of("wax+") != std::string_view::npos)
            report("open-write", open_token, "opens a file for writing (mode '" + std::string(*mode) +
                                             "'): generated code under test should not write files");
    }

    void scan(const std::vector<PyToken>& tokens) {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const PyToken& token = tokens[i];
            if (token.kind != PyTokenKind::name) continue;
            const bool after_dot = i > 0 && is_op(tokens[i - 1], ".");
            const bool after_def = i > 0 && (is_name(tokens[i - 1], "def") || is_name(tokens[i - 1], "class"));
            const bool called = i + 1 < tokens.size() && is_op(tokens[i + 1], "(");
            const bool plain_call = called && !after_dot && !after_def;
            const std::string_view name = token.text;

            if (name == "import") {
                // `from m import x` is handled at `from`; here only the plain form.
                bool from_form = false;
                for (std::size_t k = i; k-- > 0 && !ends_statement(tokens[k]);)
                    from_form = from_form || is_name(tokens[k], "from");
                if (!from_form)
                    for (const auto& module : parse_import(tokens, i)) check_module(module.dotted, *module.root);
            } else if (name == "from") {
                check_from_import(tokens, i);
            } else if (name == "subprocess") {
                report("subprocess", token, "uses subprocess: starts other programs from generated code");
            } else if (name == "eval" && plain_call) {
                report("call-eval", token, "calls eval(): runs a string as code, which no static check can see");
            } else if (name == "exec" && plain_call) {
                report("call-exec", token, "calls exec(): runs a string as code, which no static check can see");
            } else if (name == "__import__" && plain_call) {
                report("dunder-import", token, "calls __import__(): imports a module by a computed name, hidden "
                                               "from these checks");
            } else if (name == "compile" && plain_call) {
                report("call-compile", token, "calls compile(): builds code objects from strings at run time");
            } else if (name == "globals" && plain_call) {
                report("call-globals", token, "calls globals(): reads and rewrites module state, a common step "
                                              "around restrictions");
            } else if (name == "open" && called && !after_def) {
                check_open(tokens, i);
            } else if (name == "__builtins__") {
                report("builtins-access", token, "accesses __builtins__: reaches eval, exec and __import__ "
                                                 "indirectly, around the other checks");
            } else if (name == "__subclasses__") {
                report("dunder-subclasses", token, "accesses __subclasses__: walks the class tree to reach "
                                                   "objects the code never imported (a classic escape)");
            } else if (name == "__globals__") {
                report("dunder-globals", token, "accesses __globals__: reaches a function's module namespace "
                                                "and the builtins behind it");
            } else if (!after_dot && i + 2 < tokens.size() && is_op(tokens[i + 1], ".") &&
                       tokens[i + 2].kind == PyTokenKind::name) {
                const std::string_view member = tokens[i + 2].text;
                if (os_names_.contains(std::string(name)) || name == "os")
                    check_os_member(member, token, name, false);
                if ((importlib_names_.contains(std::string(name)) || name == "importlib") && member == "import_module")
                    report("importlib-import-module", token, "calls " + std::string(name) +
                                                                 ".import_module: loads a module by a computed "
                                                                 "name, hidden from these checks");
            }
        }
    }

    const detail::PyTokens& tokenized_;
    FindingSink& sink_;
    std::set<std::string, std::less<>> os_names_{"os"};
    std::set<std::string, std::less<>> importlib_names_{"importlib"};
};

// ---------------------------------------------------------------------------------------------------------
// JavaScript

enum class JsTokenKind { name, string, number, punct, regex };

struct JsToken {
    JsTokenKind kind = JsTokenKind::punct;
    std::string_view text;
    std::size_t line = 0;
    std::size_t column = 0;
};

// Enough of JavaScript's lexical grammar to tell code from strings, template text, comments and regexes.
class JsTokenizer {
public:
    explicit JsTokenizer(std::string_view code) : code_(code) {}

    std::vector<JsToken> run() && {
        scan(code_.size(), false);
        return std::move(tokens_);
    }

private:
    std::size_t column() const noexcept { return pos_ - line_start_ + 1; }

    void newline_at(std::size_t newline_pos) {
        ++line_;
        line_start_ = newline_pos + 1;
    }

    void push(JsTokenKind kind, std::size_t begin, std::size_t line, std::size_t col) {
        tokens_.push_back({kind, code_.substr(begin, pos_ - begin), line, col});
    }

    // A '/' starts a regex literal unless it follows something that ends an expression.
    bool regex_allowed() const {
        if (tokens_.empty()) return true;
        const JsToken& last = tokens_.back();
        if (last.kind == JsTokenKind::punct) return last.text != ")" && last.text != "]" && last.text != "}";
        if (last.kind == JsTokenKind::name) {
            static constexpr std::array<std::string_view, 14> kKeywords{
                "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
                "instanceof", "yield", "await"};
            return std::find(kKeywords.begin(), kKeywords.end(), last.text) != kKeywords.end();
        }
        return false;
    }

    // Scans [pos_, end); `in_template_field` stops at the `}` closing a `${...}` field.
    void scan(std::size_t end, bool in_template_field) {
        std::size_t depth = 0;
        while (pos_ < end) {
            const char c = code_[pos_];
            const std::size_t begin = pos_;
            const std::size_t line = line_;
            const std::size_t col = column();
            if (c == '\n') {
                newline_at(pos_);
                ++pos_;
            } else if (c == ' ' || c == '\t' || c == '\r') {
                ++pos_;
            } else if (c == '/' && pos_ + 1 < end && code_[pos_ + 1] == '/') {
                while (pos_ < end && code_[pos_] != '\n') ++pos_;
            } else if (c == '/' && pos_ + 1 < end && code_[pos_ + 1] == '*') {
                pos_ += 2;
                while (pos_ < end && !(code_[pos_] == '*' && pos_ + 1 < end && code_[pos_ + 1] == '/')) {
                    if (code_[pos_] == '\n') newline_at(pos_);
                    ++pos_;
                }
                pos_ = std::min(pos_ + 2, end);
            } else if (c == '\'' || c == '"') {
                ++pos_;
                while (pos_ < end && code_[pos_] != c && code_[pos_] != '\n') {
                    if (code_[pos_] == '\\' && pos_ + 1 < end) {
                        if (code_[pos_ + 1] == '\n') newline_at(pos_ + 1);
                        ++pos_;
                    }
                    ++pos_;
                }
                // An unterminated string ends at its line, so the next line is still read as code.
                if (pos_ < end && code_[pos_] == c) ++pos_;
                push(JsTokenKind::string, begin, line, col);
            } else if (c == '`') {
                scan_template(end);
                push(JsTokenKind::string, begin, line, col);
            } else if (c == '/' && regex_allowed()) {
                ++pos_;
                bool in_class = false;
                while (pos_ < end && code_[pos_] != '\n') {
                    const char r = code_[pos_];
                    if (r == '\\') {
                        pos_ += 2;
                        continue;
                    }
                    ++pos_;
                    if (r == '[') in_class = true;
                    else if (r == ']') in_class = false;
                    else if (r == '/' && !in_class) break;
                }
                while (pos_ < end && python_identifier_char(code_[pos_])) ++pos_;
                pos_ = std::min(pos_, end);
                push(JsTokenKind::regex, begin, line, col);
            } else if (python_identifier_start(c) || c == '$') {
                while (pos_ < end && (python_identifier_char(code_[pos_]) || code_[pos_] == '$')) ++pos_;
                push(JsTokenKind::name, begin, line, col);
            } else if (c >= '0' && c <= '9') {
                while (pos_ < end && (python_identifier_char(code_[pos_]) || code_[pos_] == '.')) ++pos_;
                push(JsTokenKind::number, begin, line, col);
            } else {
                if (in_template_field && c == '}' && depth == 0) return;
                if (c == '{' || c == '(' || c == '[') ++depth;
                if ((c == '}' || c == ')' || c == ']') && depth > 0) --depth;
                ++pos_;
                push(JsTokenKind::punct, begin, line, col);
            }
        }
    }

    static bool python_identifier_start(char c) { return detail::python_tokenizer_internal::is_identifier_start(c); }
    static bool python_identifier_char(char c) { return detail::python_tokenizer_internal::is_identifier_char(c); }

    // A template literal from its opening backtick; `${...}` fields are code and are tokenized in place.
    void scan_template(std::size_t end) {
        ++pos_;
        while (pos_ < end) {
            const char c = code_[pos_];
            if (c == '\\') {
                if (pos_ + 1 < end && code_[pos_ + 1] == '\n') newline_at(pos_ + 1);
                pos_ += 2;
            } else if (c == '`') {
                ++pos_;
                return;
            } else if (c == '$' && pos_ + 1 < end && code_[pos_ + 1] == '{') {
                pos_ += 2;
                // The field's tokens land before the template's own token; rules only look at code tokens.
                scan(end, true);
                if (pos_ < end) ++pos_;  // the closing '}'
            } else {
                if (c == '\n') newline_at(pos_);
                ++pos_;
            }
        }
        pos_ = std::min(pos_, end);
    }

    std::string_view code_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t line_start_ = 0;
    std::vector<JsToken> tokens_;
};

std::string_view js_string_value(std::string_view literal) {
    if (literal.size() < 2) return {};
    return literal.substr(1, literal.size() - 2);
}

void scan_javascript(std::string_view code, FindingSink& sink) {
    const auto tokens = JsTokenizer(code).run();
    const auto is_punct = [&](std::size_t i, std::string_view text) {
        return i < tokens.size() && tokens[i].kind == JsTokenKind::punct && tokens[i].text == text;
    };
    const auto is_word = [&](std::size_t i, std::string_view text) {
        return i < tokens.size() && tokens[i].kind == JsTokenKind::name && tokens[i].text == text;
    };
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const JsToken& token = tokens[i];
        const bool after_dot = i > 0 && is_punct(i - 1, ".");
        if (token.kind == JsTokenKind::string && token.text.front() != '`') {
            const std::string_view module = js_string_value(token.text);
            if (module != "child_process" && module != "node:child_process") continue;
            const bool required = i >= 2 && is_punct(i - 1, "(") && (is_word(i - 2, "require") || is_word(i - 2, "import"));
            const bool imported = i >= 1 && (is_word(i - 1, "from") || is_word(i - 1, "import"));
            if (required || imported)
                sink.add("js-child-process", token.line, token.column,
                         "loads " + std::string(module) + ": starts other programs from generated code");
        } else if (token.kind == JsTokenKind::name && token.text == "eval" && !after_dot && is_punct(i + 1, "(")) {
            sink.add("js-eval", token.line, token.column, "calls eval(): runs a string as code, which no static check can see");
        } else if (token.kind == JsTokenKind::name && token.text == "process" && !after_dot && is_punct(i + 1, ".") &&
                   is_word(i + 2, "env")) {
            sink.add("js-process-env", token.line, token.column,
                     "reads process.env: looks for secrets in the environment (the sandbox passes none unless asked)");
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// bash

enum class ShTokenKind { word, op, newline };

struct ShToken {
    ShTokenKind kind = ShTokenKind::word;
    std::string value;  // a word with its quotes removed; an operator as written
    bool quoted = false;
    std::size_t line = 0;
    std::size_t column = 0;
};

// Words with quoting resolved, operators, newlines; comments and here-document bodies are skipped, and the
// commands inside $(...) are tokenized in place so that they are checked too.
class ShTokenizer {
public:
    explicit ShTokenizer(std::string_view code) : code_(code) {}

    std::vector<ShToken> run() && {
        scan(code_.size(), false);
        return std::move(tokens_);
    }

private:
    std::size_t column() const noexcept { return pos_ - line_start_ + 1; }

    void newline_at(std::size_t newline_pos) {
        ++line_;
        line_start_ = newline_pos + 1;
    }

    static bool is_operator_char(char c) { return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>'; }

    void skip_here_documents(std::size_t end) {
        for (const auto& [delimiter, strip_tabs] : pending_here_documents_) {
            while (pos_ < end) {
                const std::size_t line_end = std::min(code_.find('\n', pos_), end);
                std::string_view body_line = code_.substr(pos_, line_end - pos_);
                if (strip_tabs) body_line.remove_prefix(std::min(body_line.find_first_not_of('\t'), body_line.size()));
                if (!body_line.empty() && body_line.back() == '\r') body_line.remove_suffix(1);
                pos_ = line_end;
                if (pos_ < end) {
                    newline_at(pos_);
                    ++pos_;
                }
                if (body_line == delimiter) break;
            }
        }
        pending_here_documents_.clear();
    }

    void scan(std::size_t end, bool in_substitution) {
        std::size_t depth = 0;
        while (pos_ < end) {
            const char c = code_[pos_];
            const std::size_t line = line_;
            const std::size_t col = column();
            if (c == '\n') {
                tokens_.push_back({ShTokenKind::newline, "\n", false, line, col});
                newline_at(pos_);
                ++pos_;
                skip_here_documents(end);
            } else if (c == ' ' || c == '\t' || c == '\r') {
                ++pos_;
            } else if (c == '\\' && pos_ + 1 < end && code_[pos_ + 1] == '\n') {
                newline_at(pos_ + 1);
                pos_ += 2;
            } else if (c == '#') {
                while (pos_ < end && code_[pos_] != '\n') ++pos_;
            } else if (is_operator_char(c)) {
                if (in_substitution && c == ')' && depth == 0) return;
                static constexpr std::array<std::string_view, 13> kOperators{
                    "<<<", "<<-", "&&", "||", ";;", "<<", ">>", "<>", ">&", "<&", "&>", ">|", "|&"};
                std::string_view op = code_.substr(pos_, 1);
                for (const auto candidate : kOperators)
                    if (pos_ + candidate.size() <= end && code_.substr(pos_, candidate.size()) == candidate) {
                        op = candidate;
                        break;
                    }
                if (op == "(") ++depth;
                if (op == ")" && depth > 0) --depth;
                pos_ += op.size();
                tokens_.push_back({ShTokenKind::op, std::string(op), false, line, col});
                if (op == "<<" || op == "<<-") expect_here_delimiter_ = op == "<<-" ? 2 : 1;
            } else {
                scan_word(end, line, col);
            }
        }
    }

    void scan_word(std::size_t end, std::size_t line, std::size_t col) {
        ShToken word{ShTokenKind::word, "", false, line, col};
        while (pos_ < end) {
            const char c = code_[pos_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || is_operator_char(c)) break;
            if (c == '\\' && pos_ + 1 < end) {
                if (code_[pos_ + 1] == '\n') newline_at(pos_ + 1);
                else word.value += code_[pos_ + 1];
                word.quoted = true;
                pos_ += 2;
            } else if (c == '\'') {
                word.quoted = true;
                ++pos_;
                while (pos_ < end && code_[pos_] != '\'') {
                    if (code_[pos_] == '\n') newline_at(pos_);
                    word.value += code_[pos_++];
                }
                if (pos_ < end) ++pos_;
            } else if (c == '"') {
                word.quoted = true;
                ++pos_;
                while (pos_ < end && code_[pos_] != '"') {
                    if (code_[pos_] == '\\' && pos_ + 1 < end) {
                        word.value += code_[pos_ + 1];
                        pos_ += 2;
                        continue;
                    }
                    if (code_[pos_] == '\n') newline_at(pos_);
                    word.value += code_[pos_++];
                }
                if (pos_ < end) ++pos_;
            } else if (c == '$' && pos_ + 1 < end && code_[pos_ + 1] == '(' &&
                       !(pos_ + 2 < end && code_[pos_ + 2] == '(')) {
                // Command substitution: its commands run, so they are tokenized as commands of their own.
                tokens_.push_back({ShTokenKind::op, "$(", false, line_, column()});
                pos_ += 2;
                scan(end, true);
                tokens_.push_back({ShTokenKind::op, ")", false, line_, column()});
                if (pos_ < end) ++pos_;
                word.value += "$(...)";
            } else {
                word.value += c;
                ++pos_;
            }
        }
        if (expect_here_delimiter_ != 0) {
            pending_here_documents_.emplace_back(word.value, expect_here_delimiter_ == 2);
            expect_here_delimiter_ = 0;
        }
        tokens_.push_back(std::move(word));
    }

    std::string_view code_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t line_start_ = 0;
    int expect_here_delimiter_ = 0;  // 1 after "<<", 2 after "<<-" (tabs stripped from the body)
    std::vector<std::pair<std::string, bool>> pending_here_documents_;
    std::vector<ShToken> tokens_;
};

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

void check_rm(const std::vector<ShToken>& tokens, std::size_t at, FindingSink& sink) {
    bool recursive = false;
    bool options_done = false;
    std::optional<std::string> root_target;
    for (std::size_t i = at + 1; i < tokens.size() && tokens[i].kind == ShTokenKind::word; ++i) {
        const std::string& argument = tokens[i].value;
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
        sink.add("bash-rm-root", tokens[at].line, tokens[at].column,
                 "runs rm recursively on " + *root_target + ": deletes every file it can reach");
}

void scan_bash(std::string_view code, FindingSink& sink) {
    const auto tokens = ShTokenizer(code).run();
    static constexpr std::array<std::string_view, 11> kCommandSeparators{
        ";", "&", "&&", "||", "|", "|&", "(", "$(", ";;", "{", "!"};
    static constexpr std::array<std::string_view, 9> kCommandPrefixes{
        "then", "do", "else", "elif", "if", "while", "until", "time", "!"};
    static constexpr std::array<std::string_view, 6> kWrappers{"sudo", "env", "exec", "command", "nohup", "xargs"};
    static constexpr std::array<std::string_view, 5> kNetworkTools{"curl", "wget", "nc", "ncat", "netcat"};
    const auto in = [](const auto& list, std::string_view value) {
        return std::find(list.begin(), list.end(), value) != list.end();
    };

    bool command_position = true;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const ShToken& token = tokens[i];
        if (token.kind == ShTokenKind::newline) {
            command_position = true;
            continue;
        }
        if (token.kind == ShTokenKind::op) {
            const bool redirect = token.value.find_first_of("<>") != std::string::npos;
            if (redirect && i + 1 < tokens.size() && tokens[i + 1].kind == ShTokenKind::word &&
                is_dev_network_path(tokens[i + 1].value))
                sink.add("bash-dev-tcp", tokens[i + 1].line, tokens[i + 1].column,
                         "redirects to " + tokens[i + 1].value + ": bash opens a network connection" +
                             std::string(kNoNetwork));
            if (redirect) ++i;  // the redirect's target is not a command
            else command_position = in(kCommandSeparators, token.value) || command_position;
            continue;
        }
        if (!token.quoted && is_dev_network_path(token.value))
            sink.add("bash-dev-tcp", token.line, token.column,
                     "uses " + token.value + ": bash opens a network connection" + std::string(kNoNetwork));
        if (!command_position) continue;
        if (!token.quoted && (in(kCommandPrefixes, token.value) || token.value == "{")) continue;
        if (is_assignment_word(token)) continue;
        const std::string_view command = basename_of(token.value);
        if (in(kWrappers, command)) continue;  // the next word is the command that really runs
        command_position = false;
        if (in(kNetworkTools, command))
            sink.add("bash-network-tool", token.line, token.column,
                     "runs " + std::string(command) + ": network access from generated code" + std::string(kNoNetwork));
        if (command == "rm") check_rm(tokens, i, sink);
    }
}

}  // namespace

SafetyScanner::SafetyScanner(Policy policy) : policy_(std::move(policy)) {
    check_rule_ids(policy_.allow_rules, "allow_rules");
    check_rule_ids(policy_.deny_rules, "deny_rules");
}

std::vector<Finding> SafetyScanner::scan(std::string_view code, Language language) const {
    FindingSink sink(policy_);
    switch (language) {
        case Language::python: {
            const auto tokenized = detail::tokenize_python(code);
            PythonRules(tokenized, sink).run();
            break;
        }
        case Language::javascript: scan_javascript(code, sink); break;
        case Language::bash: scan_bash(code, sink); break;
    }
    return std::move(sink).take();
}

bool SafetyScanner::blocks(const std::vector<Finding>& findings) noexcept {
    return std::any_of(findings.begin(), findings.end(),
                       [](const Finding& finding) { return finding.severity == Severity::block; });
}

}  // namespace e2beval

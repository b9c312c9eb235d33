// The scanner's rules for JavaScript (and the JavaScript in TypeScript), on the tokenizer's tokens: modules
// loaded by require or import (a table: module -> rule), computed module names, eval, timers and the Function
// constructor given strings (a fixed string is scanned as code), network globals, process internals, global
// lookups by computed keys and names assembled from pieces. The paths fs calls are given: rules/javascript_fs.cpp.
#include <algorithm>
#include <array>
#include <optional>

#include "analysis/javascript_fs_rules.hpp"
#include "analysis/js_tokenizer.hpp"
#include "analysis/scan_support.hpp"
#include "analysis/scripting_rules.hpp"

namespace e2beval::detail {

namespace {

constexpr std::string_view kPrograms = "starts other programs from generated code";
constexpr std::string_view kNetworkAccess = "network access from generated code";
constexpr std::string_view kContexts = "runs code in new contexts or threads, around these checks";

// By the module's first path component: "fs/promises" is fs's.
constexpr ImportRule kModules[] = {
    {"child_process", "js-child-process", kPrograms, false},
    {"cluster", "js-child-process", kPrograms, false},
    {"fs", "js-fs", "reads and writes files (a warning under standard: reading stdin needs it, and the paths each fs "
                    "call is given are checked)", false},
    {"net", "js-network", kNetworkAccess, true},
    {"http", "js-network", kNetworkAccess, true},
    {"https", "js-network", kNetworkAccess, true},
    {"http2", "js-network", kNetworkAccess, true},
    {"dgram", "js-network", kNetworkAccess, true},
    {"tls", "js-network", kNetworkAccess, true},
    {"dns", "js-network", kNetworkAccess, true},
    {"vm", "js-vm", kContexts, false},
    {"worker_threads", "js-vm", kContexts, false},
    {"v8", "js-vm", kContexts, false},
    {"inspector", "js-vm", kContexts, false},
    {"module", "js-vm", kContexts, false},
    {"repl", "js-vm", kContexts, false},
};

static_assert(all_rules_of(kModules, Language::javascript));

const ImportRule* module_row(std::string_view root) {
    return find_row(kModules, [&](const ImportRule& row) { return row.module == root; });
}

// The module without a "node:" prefix, and its first path component.
std::string_view module_root(std::string_view module) {
    if (module.starts_with("node:")) module.remove_prefix(5);
    return module.substr(0, module.find('/'));
}

class JavaScriptRules {
public:
    JavaScriptRules(std::string_view code, FindingSink& sink, int depth)
        : tokens_(JsTokenizer(code).run()), sink_(sink), depth_(depth) {}

    void run() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) visit(i);
        scan_javascript_file_access(tokens_, sink_);
    }

private:
    bool punct(std::size_t i, std::string_view text) const {
        return i < tokens_.size() && tokens_[i].kind == JsTokenKind::punct && tokens_[i].text == text;
    }
    bool word(std::size_t i, std::string_view text) const {
        return i < tokens_.size() && tokens_[i].kind == JsTokenKind::name && tokens_[i].text == text;
    }

    void report(RuleId rule, const JsToken& at, std::string message, const Subject& subject = {}) {
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
        return js_constant_string(tokens_, begin, end, ends);
    }

    bool has_obfuscation(std::size_t begin, std::size_t end) const {
        return js_has_obfuscation(tokens_, begin, end);
    }

    void check_module(std::string_view raw, const JsToken& at) {
        std::string_view module = raw;
        if (module.starts_with("node:")) module.remove_prefix(5);
        const std::string_view root = module.substr(0, module.find('/'));
        const Subject subject{Subject::Kind::module, std::string(module), std::string(root)};
        const std::string name(raw);
        if (module_listed(sink_.policy().deny_modules, module) || module_listed(sink_.policy().deny_modules, root))
            report("denied-module", at, "loads " + name + ", which the policy denies", subject);
        const ImportRule* row = module_row(root);
        if (!row) return;
        report(row->rule, at, "loads " + name + ": " + std::string(row->what) + std::string(row->network ? kNoNetwork : ""),
               subject);
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

    // eval(...), new Function(...), and setTimeout/setInterval when `only_given_a_string` (a timer given a
    // function is ordinary code).
    void check_eval_call(std::size_t name_at, std::size_t open, RuleId rule, std::string_view what,
                         bool only_given_a_string = false) {
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
        if (only_given_a_string && !(open + 1 < tokens_.size() && tokens_[open + 1].kind == JsTokenKind::string)) return;
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
            check_eval_call(i, i + 1, "js-eval", std::string(name) + " with a string: runs the string as code", true);
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

}  // namespace

void scan_javascript(std::string_view code, FindingSink& sink, int depth) { JavaScriptRules(code, sink, depth).run(); }

RuleId javascript_module_rule(std::string_view module) {
    const ImportRule* row = module_row(module_root(module));
    return row ? row->rule : RuleId();
}

}  // namespace e2beval::detail

// The scanner's file-access rules for JavaScript and TypeScript: where fs calls read and write.
// Loading fs is a warning under `standard` (js-fs), because a stdin/stdout answer reads its input with
// require('fs').readFileSync(0, 'utf8') and the sandbox's workspace is the only writable place. What still
// blocks is what Python's open-system-path and open-parent-path block: a literal path under the host's system
// directories, or one that climbs out with .. (the same classification, scan_support.hpp's classify_path).
//
// Only the path arguments of calls on fs are judged, not every string of a program that loads fs: a program
// that solves a path-normalisation task holds "/home/../etc" as data, and holding it is not access. So fs is
// followed through what binds it: `const fs = require('fs')`, `import * as fs`, `import fs`, destructuring and
// named imports (`const { readFileSync: read } = require('fs')`), `fs.promises` and 'fs/promises', simple
// aliases, `require('fs').readFileSync(...)` inline, and names holding a literal (`const p = '/etc/passwd'`).
// What these bindings cannot follow (fs through an array, .call, a computed key) still has js-fs's warning; a
// path fs is given that is not a literal is a warning (js-fs-computed-path), or a block when it is decoded at
// run time (js-obfuscated-code).
#include "analysis/javascript_fs_rules.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace e2beval::detail {

namespace rules_javascript_fs {

bool is_fs_module(std::string_view name) {
    if (name.starts_with("node:")) name.remove_prefix(5);
    return name == "fs" || name == "fs/promises";
}

// fs functions whose first argument is a file descriptor, not a path: fs.writeSync(1, answer) prints.
bool takes_descriptor(std::string_view function) {
    if (function.ends_with("Sync")) function.remove_suffix(4);
    static constexpr std::array<std::string_view, 12> kNames{"read",   "write",     "close",     "readv",
                                                             "writev", "fstat",     "fsync",     "fdatasync",
                                                             "ftruncate", "fchmod", "fchown",    "futimes"};
    return std::find(kNames.begin(), kNames.end(), function) != kNames.end();
}

// fs functions that take two paths (source and destination): both are judged.
bool takes_two_paths(std::string_view function) {
    if (function.ends_with("Sync")) function.remove_suffix(4);
    return function == "rename" || function == "copyFile" || function == "cp" || function == "link" ||
           function == "symlink";
}

class FileAccess {
public:
    FileAccess(const std::vector<JsToken>& tokens, FindingSink& sink) : tokens_(tokens), sink_(sink) {}

    void run() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            if (word(i, "import") && !after_dot(i) && !punct(i + 1, "(")) collect_import(i);
            else if (punct(i, "=")) collect_assignment(i);
        }
        for (std::size_t i = 0; i + 1 < tokens_.size(); ++i) {
            if (!punct(i + 1, "(")) continue;
            if (const auto function = fs_function_before(i)) check_call(*function, i + 1);
        }
    }

private:
    bool punct(std::size_t i, std::string_view text) const { return js_punct(tokens_, i, text); }
    bool word(std::size_t i, std::string_view text) const {
        return i < tokens_.size() && tokens_[i].kind == JsTokenKind::name && tokens_[i].text == text;
    }
    bool is_name(std::size_t i) const { return i < tokens_.size() && tokens_[i].kind == JsTokenKind::name; }
    bool after_dot(std::size_t i) const { return i > 0 && punct(i - 1, "."); }

    static bool opens(std::string_view text) { return text == "(" || text == "[" || text == "{"; }
    static bool closes(std::string_view text) { return text == ")" || text == "]" || text == "}"; }

    std::size_t matching_close(std::size_t open) const {
        std::size_t depth = 0;
        for (std::size_t i = open; i < tokens_.size(); ++i) {
            if (tokens_[i].kind != JsTokenKind::punct) continue;
            if (opens(tokens_[i].text)) ++depth;
            else if (closes(tokens_[i].text) && --depth == 0) return i;
        }
        return tokens_.size();
    }

    std::optional<std::size_t> matching_open(std::size_t close) const {
        std::size_t depth = 0;
        for (std::size_t i = close + 1; i-- > 0;) {
            if (tokens_[i].kind != JsTokenKind::punct) continue;
            if (closes(tokens_[i].text)) ++depth;
            else if (opens(tokens_[i].text) && --depth == 0) return i;
        }
        return std::nullopt;
    }

    // `require('fs')` or `import('fs')` whose '(' is at `open`.
    bool is_fs_load(std::size_t open) const {
        if (open == 0 || after_dot(open - 1) || !(word(open - 1, "require") || word(open - 1, "import"))) return false;
        if (!punct(open + 2, ")")) return false;
        const auto name = js_literal_value(tokens_[open + 1]);
        return name && is_fs_module(*name);
    }

    // Whether the expression ending at `k` (inclusive) is the fs module or fs.promises.
    bool is_module_ending_at(std::size_t k) const {
        if (k >= tokens_.size()) return false;
        if (word(k, "promises") && after_dot(k)) return k >= 2 && is_module_ending_at(k - 2);
        if (is_name(k)) return !after_dot(k) && modules_.contains(tokens_[k].text);
        if (!punct(k, ")")) return false;
        const auto open = matching_open(k);
        if (!open) return false;
        if (*open > 0 && is_fs_load(*open)) return true;
        // (await import('fs')).readFile(...)
        return word(*open + 1, "await") && punct(*open + 3, "(") && *open + 5 == k && is_fs_load(*open + 3);
    }

    // The end (exclusive) of the fs module expression starting at `begin`: require('fs'), await import('fs'), a
    // name bound to fs, each optionally followed by .promises.
    std::optional<std::size_t> module_expression_end(std::size_t begin) const {
        std::size_t end = 0;
        if (word(begin, "await") && word(begin + 1, "import") && is_fs_load(begin + 2)) end = begin + 5;
        else if (word(begin, "require") && is_fs_load(begin + 1)) end = begin + 4;
        else if (is_name(begin) && modules_.contains(tokens_[begin].text)) end = begin + 1;
        else return std::nullopt;
        while (punct(end, ".") && word(end + 1, "promises")) end += 2;
        return end;
    }

    // Whether a statement's value may end before token `k` (so `x = 'a'` is all of the value, `x = 'a'.trim()` not).
    bool value_ends_at(std::size_t k) const {
        if (k >= tokens_.size()) return true;
        if (punct(k, ".") || punct(k, "[") || punct(k, "(") || punct(k, "+") || punct(k, "?")) return false;
        return punct(k, ";") || punct(k, ",") || punct(k, ")") || punct(k, "}") || punct(k, "]") ||
               tokens_[k].line > tokens_[k - 1].line;
    }

    // The name a declaration with a TypeScript annotation binds: `const fs: typeof import('fs') = ...`.
    std::optional<std::string_view> annotated_target(std::size_t equals) const {
        for (std::size_t k = equals; k-- > 0 && equals - k < 24;) {
            if (punct(k, ";")) return std::nullopt;
            if ((word(k, "const") || word(k, "let") || word(k, "var")) && is_name(k + 1) && punct(k + 2, ":"))
                return tokens_[k + 1].text;
        }
        return std::nullopt;
    }

    void bind_module_or_function(std::string_view local, std::string_view member) {
        if (member.empty() || member == "promises" || member == "default") modules_.insert(std::string(local));
        else functions_[std::string(local)] = std::string(member);
    }

    // `{ a, b: c, promises, ...rest }` between `open` and `close`: each local bound to the fs member it takes.
    void bind_pattern(std::size_t open, std::size_t close, std::string_view separator) {
        std::size_t begin = open + 1;
        for (std::size_t i = open + 1; i <= close; ++i) {
            if (i < close && tokens_[i].kind == JsTokenKind::punct && opens(tokens_[i].text)) {
                i = matching_close(i);
                continue;
            }
            if (i < close && !punct(i, ",")) continue;
            std::size_t b = begin;
            if (word(b, "type")) ++b;  // import { type Stats } binds no value
            if (is_name(b)) {
                const bool renamed = separator == ":" ? punct(b + 1, ":") : word(b + 1, separator);
                if (renamed && is_name(b + 2)) bind_module_or_function(tokens_[b + 2].text, tokens_[b].text);
                else if (!renamed) bind_module_or_function(tokens_[b].text, tokens_[b].text);
            }
            begin = i + 1;
        }
    }

    // import fs from 'fs'; import * as fs from 'fs'; import fs, { readFileSync as read } from 'node:fs'
    void collect_import(std::size_t at) {
        std::size_t from = at + 1;
        while (from < tokens_.size() && !word(from, "from") && !punct(from, ";") &&
               tokens_[from].kind != JsTokenKind::string)
            ++from;
        if (!word(from, "from") || from + 1 >= tokens_.size()) return;
        const auto module = js_literal_value(tokens_[from + 1]);
        if (!module || !is_fs_module(*module)) return;
        for (std::size_t i = at + 1; i < from; ++i) {
            if (punct(i, "{")) {
                const std::size_t close = std::min(matching_close(i), from);
                bind_pattern(i, close, "as");
                i = close;
            } else if (punct(i, "*") && word(i + 1, "as") && is_name(i + 2)) {
                modules_.insert(std::string(tokens_[i + 2].text));
                i += 2;
            } else if (is_name(i) && !word(i, "type") && (punct(i + 1, ",") || i + 1 == from)) {
                modules_.insert(std::string(tokens_[i].text));
            }
        }
    }

    // `target = value` at the '=' token `equals`: fs bound to a name or a pattern, or a name holding a literal.
    void collect_assignment(std::size_t equals) {
        if (equals == 0 || punct(equals + 1, "=") || punct(equals + 1, ">")) return;  // ==, ===, =>
        const JsToken& before = tokens_[equals - 1];
        if (before.kind == JsTokenKind::punct && before.text != "}") {
            if (before.text == "=" || before.text == "!" || before.text == "<") return;  // ==, !=, <=
            if (before.text != ">" && before.text != ")" && before.text != "]") {
                // +=, ||= and the like change a name's value: it no longer holds one known literal.
                if (equals >= 2 && is_name(equals - 2) && !after_dot(equals - 2))
                    computed_.insert(std::string(tokens_[equals - 2].text));
                return;
            }
            // `const fs: typeof import('fs') = ...`, `const m: Map<K, V> = ...`: the annotation ends in a type.
            if (const auto target = annotated_target(equals)) collect_value(*target, equals);
            return;
        }
        if (before.text == "}") {
            const auto open = matching_open(equals - 1);
            const auto end = module_expression_end(equals + 1);
            if (open && end && value_ends_at(*end)) bind_pattern(*open, equals - 1, ":");
            return;
        }
        // `const fs = ...`; `const p: string = ...` names its type before the '=', not what it binds.
        const bool annotated = equals >= 2 && punct(equals - 2, ":");
        if (before.kind == JsTokenKind::name && !after_dot(equals - 1) && !annotated) collect_value(before.text, equals);
        else if (const auto target = annotated_target(equals)) collect_value(*target, equals);
    }

    void collect_value(std::string_view target, std::size_t equals) {
        const std::string name(target);
        if (const auto end = module_expression_end(equals + 1)) {
            if (value_ends_at(*end)) bind_module_or_function(name, "");
            else if (punct(*end, ".") && is_name(*end + 1) && value_ends_at(*end + 2))
                bind_module_or_function(name, tokens_[*end + 1].text);
            return;
        }
        // const read = fs.readFileSync
        if (is_name(equals + 1) && punct(equals + 2, ".") && is_name(equals + 3) && value_ends_at(equals + 4) &&
            is_module_ending_at(equals + 1)) {
            bind_module_or_function(name, tokens_[equals + 3].text);
            return;
        }
        std::size_t end = equals + 1;
        while (end < tokens_.size() && (tokens_[end].kind == JsTokenKind::string || punct(end, "+"))) ++end;
        const auto value = end > equals + 1 && value_ends_at(end) ? js_constant_string(tokens_, equals + 1, end)
                                                                  : std::nullopt;
        if (value) literals_[name].push_back(*value);
        else computed_.insert(name);
    }

    // The fs function called by the '(' after token `i`: fs.readFileSync(, readFileSync( when bound by a named
    // import or destructuring, require('fs').readFileSync(, fs.promises.readFile(, fs['readFileSync'](.
    std::optional<std::string> fs_function_before(std::size_t i) const {
        if (is_name(i)) {
            const std::string_view name = tokens_[i].text;
            if (!after_dot(i)) {
                const auto found = functions_.find(name);
                if (found != functions_.end()) return found->second;
                return std::nullopt;
            }
            if (i >= 2 && name != "promises" && is_module_ending_at(i - 2)) return std::string(name);
            return std::nullopt;
        }
        if (punct(i, "]")) {
            const auto open = matching_open(i);
            if (!open || *open + 2 != i || *open == 0) return std::nullopt;
            const auto key = js_literal_value(tokens_[*open + 1]);
            if (key && is_module_ending_at(*open - 1)) return key;
        }
        return std::nullopt;
    }

    void check_call(const std::string& function, std::size_t open) {
        if (takes_descriptor(function)) return;
        const std::size_t close = std::min(matching_close(open), tokens_.size());
        std::vector<std::pair<std::size_t, std::size_t>> arguments;
        std::size_t begin = open + 1;
        for (std::size_t i = open + 1; i <= close; ++i) {
            if (i < close && tokens_[i].kind == JsTokenKind::punct && opens(tokens_[i].text)) {
                i = matching_close(i);
                continue;
            }
            if (i < close && !punct(i, ",")) continue;
            if (begin < i) arguments.emplace_back(begin, i);
            begin = i + 1;
        }
        const std::size_t paths = std::min<std::size_t>(takes_two_paths(function) ? 2 : 1, arguments.size());
        for (std::size_t a = 0; a < paths; ++a) check_path_argument(function, arguments[a].first, arguments[a].second);
    }

    // The token of [begin, end) that comes first in the source: a template literal's ${} fields are tokenized
    // before the template itself.
    std::size_t first_in_source(std::size_t begin, std::size_t end) const {
        std::size_t first = begin;
        for (std::size_t k = begin + 1; k < end; ++k)
            if (std::pair(tokens_[k].line, tokens_[k].column) < std::pair(tokens_[first].line, tokens_[first].column))
                first = k;
        return first;
    }

    // path.join('/etc', 'passwd'), path.resolve(...): the literal path its leading literal arguments make, and
    // whether every argument was a literal.
    std::optional<std::pair<std::string, bool>> joined_path(std::size_t begin, std::size_t end) const {
        if (!(word(begin, "path") && punct(begin + 1, ".") && (word(begin + 2, "join") || word(begin + 2, "resolve")) &&
              punct(begin + 3, "(") && matching_close(begin + 3) + 1 == end))
            return std::nullopt;
        const bool resolve = word(begin + 2, "resolve");
        std::string path;
        std::size_t piece_begin = begin + 4;
        for (std::size_t i = begin + 4; i < end; ++i) {
            if (tokens_[i].kind == JsTokenKind::punct && opens(tokens_[i].text)) {
                i = matching_close(i);
                continue;
            }
            if (!punct(i, ",") && !punct(i, ")")) continue;
            const auto piece = piece_begin < i ? js_constant_string(tokens_, piece_begin, i) : std::nullopt;
            if (!piece) {
                if (path.empty()) return std::nullopt;
                return std::pair(path + "/", false);
            }
            if (resolve && piece->starts_with("/")) path = *piece;
            else path += (path.empty() || path.ends_with("/") ? "" : "/") + *piece;
            piece_begin = i + 1;
        }
        return std::pair(path, true);
    }

    void check_path_argument(const std::string& function, std::size_t begin, std::size_t end) {
        const std::string call = "fs." + function;
        const Subject subject{Subject::Kind::call, call, call};
        const JsToken& at = tokens_[first_in_source(begin, end)];
        // A descriptor (readFileSync(0), process.stdin.fd) or no path at all.
        if (end == begin + 1 && (tokens_[begin].kind == JsTokenKind::number || word(begin, "null") ||
                                 word(begin, "undefined")))
            return;
        if (end == begin + 5 && word(begin, "process") && punct(begin + 1, ".") &&
            (word(begin + 2, "stdin") || word(begin + 2, "stdout") || word(begin + 2, "stderr")) &&
            punct(begin + 3, ".") && word(begin + 4, "fd"))
            return;
        if (const auto value = js_constant_string(tokens_, begin, end)) {
            report_path(call, *value, false, at, subject);
            return;
        }
        if (end == begin + 1 && is_name(begin) && !computed_.contains(tokens_[begin].text)) {
            const auto held = literals_.find(tokens_[begin].text);
            if (held != literals_.end()) {
                for (const auto& value : held->second) report_path(call, value, false, at, subject);
                return;
            }
        }
        if (const auto joined = joined_path(begin, end)) {
            if (report_path(call, joined->first, !joined->second, at, subject) || joined->second) return;
        } else if (at.kind == JsTokenKind::string) {
            // '/proc/' + pid, `/proc/${pid}/environ`: the fixed start still says where the file is.
            const std::string_view text = at.text;
            const std::size_t field = text.find("${");
            const std::string prefix = text.front() == '`' && field != std::string_view::npos
                                           ? unescape(text.substr(1, field - 1))
                                           : js_literal_value(at).value_or("");
            if (!prefix.empty() && report_path(call, prefix, true, at, subject)) return;
        }
        if (js_has_obfuscation(tokens_, begin, end)) {
            sink_.add("js-obfuscated-code", at.line, at.column,
                      call + "() of a path decoded at run time (fromCharCode, atob, Buffer, escapes, reversal): "
                             "hides which file it reads or writes",
                      subject);
            return;
        }
        sink_.add("js-fs-computed-path", at.line, at.column,
                  call + "() of a path computed at run time: these checks cannot see which file (the sandbox's "
                         "workspace is the only place it can write)",
                  subject);
    }

    // Reports a literal path (or the fixed start of one) by where it points; whether it reported anything.
    bool report_path(const std::string& call, const std::string& path, bool prefix, const JsToken& at,
                     const Subject& subject) {
        const std::string where = call + "(" + (prefix ? "a path starting '" : "'") + path.substr(0, 80) + "')";
        switch (classify_path(path)) {
            case PathKind::system:
                sink_.add("js-fs-system-path", at.line, at.column,
                          where + ": system files, devices or home directories, outside the code's working directory",
                          subject);
                return true;
            case PathKind::parent:
                sink_.add("js-fs-parent-path", at.line, at.column, where + ": climbs out of the working directory",
                          subject);
                return true;
            case PathKind::absolute:
                sink_.add("js-fs-absolute-path", at.line, at.column,
                          where + ": an absolute path; generated code should stay in its working directory", subject);
                return true;
            case PathKind::inside: return false;
        }
        return false;
    }

    const std::vector<JsToken>& tokens_;
    FindingSink& sink_;
    std::set<std::string, std::less<>> modules_;                                // names bound to fs or fs.promises
    std::map<std::string, std::string, std::less<>> functions_;                 // local name -> fs function
    std::map<std::string, std::vector<std::string>, std::less<>> literals_;     // name -> every literal assigned
    std::set<std::string, std::less<>> computed_;                               // names also assigned non-literals
};

}  // namespace rules_javascript_fs

void scan_javascript_file_access(const std::vector<JsToken>& tokens, FindingSink& sink) {
    rules_javascript_fs::FileAccess(tokens, sink).run();
}

}  // namespace e2beval::detail

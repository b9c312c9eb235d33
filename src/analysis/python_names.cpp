// What names stand for in a Python program, read before the checks (python_rules.cpp): imports and simple
// assignments that bind names to modules, members and builtins, names with a constant string value, names
// tainted by obfuscation; and the constant value of an expression assembled from literals.
#include "analysis/python_names.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "analysis/scan_support.hpp"
#include "analysis/string_escapes.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval::detail::python_scan {

bool ends_statement(const PyToken& token) { return token.kind == PyTokenKind::newline || is_op(token, ";"); }

bool is_open_bracket(const PyToken& token) { return is_op(token, "(") || is_op(token, "[") || is_op(token, "{"); }
bool is_close_bracket(const PyToken& token) { return is_op(token, ")") || is_op(token, "]") || is_op(token, "}"); }

std::string_view root_of(std::string_view dotted) { return dotted.substr(0, dotted.find('.')); }

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

PythonNames::PythonNames(const std::vector<PyToken>& tokens) { collect_bindings(tokens); }

bool PythonNames::is_alias(std::string_view name) const { return aliases_.find(name) != aliases_.end(); }

// Imports and simple assignments bind names to modules, members and builtins (`o = os`, `e = eval`,
// `m = __import__("os")`); assignments of literal-only expressions give names a constant string value;
// assignments from obfuscating expressions taint a name.
void PythonNames::collect_bindings(const std::vector<PyToken>& tokens) {
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

bool PythonNames::is_from_import(const std::vector<PyToken>& tokens, std::size_t import_at) {
    for (std::size_t k = import_at; k-- > 0 && !ends_statement(tokens[k]);)
        if (is_name(tokens[k], "from")) return true;
    return false;
}

void PythonNames::collect_from_import(const std::vector<PyToken>& tokens, std::size_t at) {
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
std::string PythonNames::qualify(std::string_view name) const {
    const auto found = aliases_.find(std::string(name));
    return found == aliases_.end() ? std::string(name) : found->second;
}

// The dotted chain starting at `i` (a name not after a dot): "o.path.join" and where it ends.
std::pair<std::string, std::size_t> PythonNames::chain_at(const std::vector<PyToken>& tokens, std::size_t i) const {
    std::string written(tokens[i].text);
    std::size_t end = i + 1;
    while (end + 1 < tokens.size() && is_op(tokens[end], ".") && tokens[end + 1].kind == PyTokenKind::name) {
        written += "." + std::string(tokens[end + 1].text);
        end += 2;
    }
    return {written, end};
}

std::string PythonNames::qualify_chain(std::string_view written) const {
    const std::string_view root = root_of(written);
    return qualify(root) + std::string(written.substr(root.size()));
}

// What an expression stands for when it is a module, member or builtin: `os`, `os.path`,
// `__import__("os")`, `importlib.import_module("o" + "s")`, `__builtins__`.
std::optional<std::string> PythonNames::resolve_expression(const std::vector<PyToken>& tokens, std::size_t begin,
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

bool PythonNames::is_import_call(std::string_view qualified) {
    return qualified == "__import__" || qualified == "builtins.__import__" ||
           qualified == "importlib.import_module" || qualified == "importlib.__import__";
}

bool PythonNames::is_interesting_target(std::string_view qualified) {
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
std::optional<std::string> PythonNames::constant_string(const std::vector<PyToken>& tokens, std::size_t begin,
                                                        std::size_t end, std::vector<std::size_t>* piece_ends) const {
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
bool PythonNames::has_obfuscation(const std::vector<PyToken>& tokens, std::size_t begin, std::size_t end) const {
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

}  // namespace e2beval::detail::python_scan

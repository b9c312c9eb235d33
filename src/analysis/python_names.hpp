// Internal: what the Python rules (python_rules.cpp) read before their checks (python_names.cpp): token helpers
// over the Python tokenizer's tokens, and PythonNames, what each name in a program stands for.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/python_tokenizer.hpp"

namespace e2beval::detail::python_scan {

bool ends_statement(const PyToken& token);
bool is_open_bracket(const PyToken& token);
bool is_close_bracket(const PyToken& token);
// "urllib.request" -> "urllib".
std::string_view root_of(std::string_view dotted);
// The string value of a literal token when it is fixed (no f-string fields); raw strings keep their backslashes.
std::optional<std::string> python_literal_value(const PyToken& token);

struct ImportedModule {
    std::string dotted;             // "urllib.request"
    const PyToken* root = nullptr;  // the token of its first component, where a finding points
    std::string bound_as;           // the name the import binds ("os", or the alias)
    bool aliased = false;
};

// `import a.b as c, d` starting at the `import` keyword.
std::vector<ImportedModule> parse_import(const std::vector<PyToken>& tokens, std::size_t at);
// The closing bracket matching the opening one at `open`, or tokens.size().
std::size_t matching_close(const std::vector<PyToken>& tokens, std::size_t open);
// The top-level comma-separated arguments of a call whose '(' is at `open`: [begin, end) token ranges.
std::vector<std::pair<std::size_t, std::size_t>> call_arguments(const std::vector<PyToken>& tokens, std::size_t open,
                                                                std::size_t close);
std::vector<std::pair<std::size_t, std::size_t>> call_arguments(const std::vector<PyToken>& tokens, std::size_t open);
// chr, base64's and binascii's decoders, codecs, reversal...: the names that decode or hide text.
bool is_obfuscation_name(std::string_view name);

// What names stand for in a program, from one pass over its tokens: imports and simple assignments bind names
// to modules, members and builtins (`import os as o`, `from os import system`, `e = eval`,
// `m = __import__("os")`); assignments of literal-only expressions give names a constant string value;
// assignments from obfuscating expressions taint a name.
class PythonNames {
public:
    explicit PythonNames(const std::vector<PyToken>& tokens);

    // `name` -> what it stands for ("os", "os.system", "eval"); itself when unbound.
    std::string qualify(std::string_view name) const;
    // The dotted chain starting at `i` (a name not after a dot): "o.path.join" and where it ends.
    std::pair<std::string, std::size_t> chain_at(const std::vector<PyToken>& tokens, std::size_t i) const;
    std::string qualify_chain(std::string_view written) const;
    // Whether an import or assignment bound `name` to something the rules know.
    bool is_alias(std::string_view name) const;
    // What an expression stands for when it is a module, member or builtin: `os`, `os.path`,
    // `__import__("os")`, `importlib.import_module("o" + "s")`, `__builtins__`.
    std::optional<std::string> resolve_expression(const std::vector<PyToken>& tokens, std::size_t begin,
                                                  std::size_t end) const;
    // The value of an expression made only of string literals, `chr(<int>)`, names with a constant value,
    // `+`, parentheses, `[::-1]` and `"".join([...])`; nullopt for anything else. `piece_ends` receives where
    // each piece ends in the value (a name split across pieces is being hidden).
    std::optional<std::string> constant_string(const std::vector<PyToken>& tokens, std::size_t begin,
                                               std::size_t end, std::vector<std::size_t>* piece_ends = nullptr) const;
    // True when the expression uses chr/base64/bytes/reversal/codecs or a tainted name.
    bool has_obfuscation(const std::vector<PyToken>& tokens, std::size_t begin, std::size_t end) const;

    static bool is_import_call(std::string_view qualified);
    static bool is_from_import(const std::vector<PyToken>& tokens, std::size_t import_at);

private:
    void collect_bindings(const std::vector<PyToken>& tokens);
    void collect_from_import(const std::vector<PyToken>& tokens, std::size_t at);
    static bool is_interesting_target(std::string_view qualified);

    static constexpr int kMaxParentheses = 16;  // ((("o" + "s"))) is unwrapped; deeper nesting is not a constant
    mutable int nesting_ = 0;
    std::map<std::string, std::string, std::less<>> aliases_;
    std::map<std::string, std::string, std::less<>> constants_;
    std::set<std::string, std::less<>> tainted_;
};

}  // namespace e2beval::detail::python_scan

// Example code dropped from an answer that defines the wanted function: the `__main__` section, prints,
// asserts, calls of the function, test functions and classes (unless ExtractOptions keeps them).
#include "analysis/extract_parts.hpp"

namespace e2beval::detail::extraction {

namespace {

// True for a top-level statement that only demonstrates or tests the function: a print, an assert, a call
// of the function, `result = f(...)`, a test function or class, unittest.main(). Definitions, imports and
// other assignments stay: the function may need them.
bool is_example_item(const TopLevelItem& item, const std::vector<PyToken>& tokens, std::string_view function_name) {
    if (item.token_begin >= item.token_end) return false;
    std::size_t first = item.token_begin;
    while (first < item.token_end && is_op(tokens[first], "@")) {
        while (first < item.token_end && tokens[first].kind != PyTokenKind::newline) ++first;
        ++first;
    }
    if (first >= item.token_end) return false;
    const PyToken& keyword = tokens[first];
    bool mentions_function = false;
    for (std::size_t i = item.token_begin; i < item.token_end && !mentions_function; ++i)
        mentions_function = is_name(tokens[i], function_name) && !(i > 0 && is_op(tokens[i - 1], "."));
    switch (item.kind) {
        case TopLevelItem::Kind::import:
        case TopLevelItem::Kind::future_import: return false;
        case TopLevelItem::Kind::definition: {
            const std::string& name = item.names.front();
            if (name == function_name) return false;
            if (is_name(keyword, "class")) return name.starts_with("Test");
            return name.starts_with("test_") || name == "test" || name == "main";
        }
        case TopLevelItem::Kind::assignment: return mentions_function;
        case TopLevelItem::Kind::other: break;
    }
    if (is_name(keyword, "print") || is_name(keyword, "assert") || is_name(keyword, "pprint")) return true;
    if (is_name(keyword, "unittest") || is_name(keyword, "pytest") || is_name(keyword, "doctest")) return true;
    if (is_name(keyword, "main") && first + 1 < tokens.size() && is_op(tokens[first + 1], "(")) return true;
    return mentions_function;
}

bool is_main_guard(const TopLevelItem& item, const std::vector<PyToken>& tokens) {
    const std::size_t at = item.token_begin;
    return item.token_end >= at + 5 && is_name(tokens[at], "if") && is_name(tokens[at + 1], "__name__") &&
           is_op(tokens[at + 2], "=") && is_op(tokens[at + 3], "=") && tokens[at + 4].kind == PyTokenKind::string &&
           detail::string_literal_body(tokens[at + 4].text) == "__main__";
}

}  // namespace

// The code without the `__main__` section and the example statements (unless asked to keep them); a comment
// directly above a dropped statement ("# Example usage:") goes with it. `note` says what was dropped.
std::string drop_examples(const std::string& code, const ExtractOptions& options, std::string& note) {
    if (!options.function_name || (options.keep_main && options.keep_examples)) return code;
    const auto tokenized = detail::tokenize_python(code);
    const auto& tokens = tokenized.tokens;
    // Only code that defines the function is trimmed; anything else is returned as found.
    bool defines = false;
    for (std::size_t i = 0; i + 2 < tokens.size() && !defines; ++i)
        defines = is_name(tokens[i], "def") && is_name(tokens[i + 1], *options.function_name) && is_op(tokens[i + 2], "(");
    if (!defines) return code;
    const auto items = top_level_items(code, tokenized, false);
    const auto lines = split_lines(code);
    std::vector<bool> dropped(lines.size(), false);
    std::size_t main_sections = 0;
    std::size_t examples = 0;
    for (const auto& item : items) {
        const bool main_guard = is_main_guard(item, tokens);
        const bool drop = main_guard ? !options.keep_main
                                     : !options.keep_examples && is_example_item(item, tokens, *options.function_name);
        if (!drop) continue;
        (main_guard ? main_sections : examples) += 1;
        for (std::size_t line = item.first_line; line <= item.last_line && line <= lines.size(); ++line)
            dropped[line - 1] = true;
        for (std::size_t line = std::min(item.first_line - 1, lines.size()); line > 0 && trim(lines[line - 1]).starts_with("#") &&
                                                     leading_whitespace(lines[line - 1]) == 0;
             --line)
            dropped[line - 1] = true;
    }
    if (main_sections == 0 && examples == 0) return code;
    std::string result;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (dropped[i]) continue;
        // No run of more than two blank lines where statements were taken out.
        if (is_blank(lines[i]) && result.ends_with("\n\n\n")) continue;
        result.append(lines[i]).append("\n");
    }
    if (main_sections > 0) note += "; dropped the if __name__ == \"__main__\": section";
    if (examples > 0) note += "; dropped " + std::to_string(examples) + " example or test statement" + (examples == 1 ? "" : "s");
    std::string trimmed(trim(result));
    return trimmed.empty() ? code : trimmed + "\n";
}

}  // namespace e2beval::detail::extraction

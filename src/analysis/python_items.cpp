// A Python program's top-level statements (imports, definitions, assignments, others, with their lines and
// tokens) and the names they bind and use: what assembling helpers and dropping examples read.
#include "analysis/extract_parts.hpp"

namespace e2beval::detail::extraction {

namespace {

void add_references(const std::vector<PyToken>& tokens, std::size_t begin, std::size_t end,
                    std::set<std::string>& references) {
    for (std::size_t i = begin; i < end && i < tokens.size(); ++i) {
        if (tokens[i].kind != PyTokenKind::name) continue;
        if (i > 0 && is_op(tokens[i - 1], ".")) continue;
        references.insert(std::string(tokens[i].text));
    }
}

// Names bound by `import a.b as c, d` or `from m import (x as y, z)`; the tokens start at the keyword.
std::vector<std::string> imported_names(const std::vector<PyToken>& tokens, std::size_t begin, std::size_t end) {
    std::vector<std::string> names;
    std::size_t i = begin;
    const bool from_form = is_name(tokens[i], "from");
    if (from_form) {
        while (i < end && !is_name(tokens[i], "import")) ++i;
    }
    ++i;  // past "import"
    while (i < end) {
        if (tokens[i].kind == PyTokenKind::newline || is_op(tokens[i], ";")) break;
        if (tokens[i].kind != PyTokenKind::name) {
            ++i;
            continue;
        }
        std::string bound(tokens[i].text);
        ++i;
        while (!from_form && i + 1 < end && is_op(tokens[i], ".") && tokens[i + 1].kind == PyTokenKind::name)
            i += 2;  // "import a.b" binds "a"
        if (i + 1 < end && is_name(tokens[i], "as") && tokens[i + 1].kind == PyTokenKind::name) {
            bound = std::string(tokens[i + 1].text);
            i += 2;
        }
        names.push_back(std::move(bound));
    }
    return names;
}

}  // namespace

std::vector<TopLevelItem> top_level_items(std::string_view code, const PyTokens& tokenized, bool with_references) {
    const auto& tokens = tokenized.tokens;
    const auto lines = split_lines(code);

    std::vector<std::size_t> starts;  // token indexes of statements at indentation 0
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i].starts_logical_line && tokens[i].indent == 0) starts.push_back(i);

    std::vector<TopLevelItem> items;
    for (std::size_t s = 0; s < starts.size(); ++s) {
        TopLevelItem item;
        const std::size_t item_begin = starts[s];
        item.first_line = tokens[item_begin].line;
        // Decorators belong to the definition below them.
        while (is_op(tokens[starts[s]], "@") && s + 1 < starts.size()) ++s;
        const std::size_t statement = starts[s];
        const std::size_t item_end = s + 1 < starts.size() ? starts[s + 1] : tokens.size();
        std::size_t last_line = item_end < tokens.size() ? tokens[item_end].line - 1 : lines.size();
        last_line = std::min(std::max(last_line, tokens[statement].line), lines.size());
        while (last_line > tokens[statement].line &&
               (is_blank(lines[last_line - 1]) || lines[last_line - 1].starts_with("#")))
            --last_line;
        item.last_line = last_line;
        item.text = join_lines(lines, item.first_line - 1, item.last_line - 1, 0);

        const PyToken& keyword = tokens[statement];
        if (is_name(keyword, "import")) {
            item.kind = TopLevelItem::Kind::import;
            item.names = imported_names(tokens, statement, item_end);
        } else if (is_name(keyword, "from")) {
            const bool future = statement + 1 < item_end && is_name(tokens[statement + 1], "__future__");
            item.kind = future ? TopLevelItem::Kind::future_import : TopLevelItem::Kind::import;
            item.names = imported_names(tokens, statement, item_end);
        } else {
            std::size_t name_at = statement;
            if (is_name(tokens[name_at], "async")) ++name_at;
            if ((is_name(tokens[name_at], "def") || is_name(tokens[name_at], "class")) && name_at + 1 < item_end) {
                item.kind = TopLevelItem::Kind::definition;
                item.names.emplace_back(tokens[name_at + 1].text);
            } else if (keyword.kind == PyTokenKind::name && statement + 2 < item_end) {
                // `name = ...` or `name: type = ...`; `else:` and `try:` have no '=' and stay "other".
                const bool plain = is_op(tokens[statement + 1], "=") && !is_op(tokens[statement + 2], "=");
                bool annotated = false;
                if (is_op(tokens[statement + 1], ":"))
                    for (std::size_t k = statement + 2; k < item_end && tokens[k].kind != PyTokenKind::newline; ++k)
                        annotated = annotated || is_op(tokens[k], "=");
                if (plain || annotated) {
                    item.kind = TopLevelItem::Kind::assignment;
                    item.names.emplace_back(keyword.text);
                }
            }
        }
        if (with_references) add_references(tokens, item_begin, item_end, item.references);
        if (with_references)
            for (const auto& field_token : tokenized.fstring_field_tokens)
                if (field_token.kind == PyTokenKind::name && field_token.line >= item.first_line &&
                    field_token.line <= item.last_line)
                    item.references.insert(std::string(field_token.text));
        item.token_begin = item_begin;
        item.token_end = item_end;
        items.push_back(std::move(item));
    }
    return items;
}

std::vector<TopLevelItem> top_level_items(std::string_view code) {
    return top_level_items(code, detail::tokenize_python(code));
}

// Names the code provides itself: module-level bindings and every function or class it defines.
std::set<std::string> defined_names(std::string_view code, const std::vector<TopLevelItem>& items) {
    std::set<std::string> names;
    for (const auto& item : items) names.insert(item.names.begin(), item.names.end());
    const auto tokens = detail::tokenize_python(code).tokens;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
        if ((is_name(tokens[i], "def") || is_name(tokens[i], "class")) && tokens[i + 1].kind == PyTokenKind::name)
            names.emplace(tokens[i + 1].text);
    return names;
}

// Names the code binds anywhere (assignment targets, loop and `as` targets, parameters): a function's local
// `largest = ...` must not pull in another block's `def largest`.
std::set<std::string> bound_names(std::string_view code) {
    const auto tokens = detail::tokenize_python(code).tokens;
    std::set<std::string> names;
    std::size_t parameter_depth = 0;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const PyToken& token = tokens[i];
        if (i >= 2 && is_op(token, "(") && is_name(tokens[i - 2], "def")) {
            parameter_depth = 1;
            continue;
        }
        if (parameter_depth > 0) {
            if (is_op(token, "(") || is_op(token, "[")) ++parameter_depth;
            else if (is_op(token, ")") || is_op(token, "]")) --parameter_depth;
            else if (parameter_depth == 1 && token.kind == PyTokenKind::name && i > 0 &&
                     (is_op(tokens[i - 1], "(") || is_op(tokens[i - 1], ",") || is_op(tokens[i - 1], "*")))
                names.emplace(token.text);
            continue;
        }
        if (token.kind != PyTokenKind::name || (i > 0 && is_op(tokens[i - 1], "."))) continue;
        const bool assigned = i + 1 < tokens.size() && is_op(tokens[i + 1], "=") &&
                              !(i + 2 < tokens.size() && is_op(tokens[i + 2], "="));
        const bool after_binder = i > 0 && (is_name(tokens[i - 1], "for") || is_name(tokens[i - 1], "as"));
        if (assigned || after_binder) names.emplace(token.text);
    }
    return names;
}

std::set<std::string> referenced_names(std::string_view code) {
    const auto tokenized = detail::tokenize_python(code);
    std::set<std::string> names;
    add_references(tokenized.tokens, 0, tokenized.tokens.size(), names);
    add_references(tokenized.fstring_field_tokens, 0, tokenized.fstring_field_tokens.size(), names);
    return names;
}

}  // namespace e2beval::detail::extraction

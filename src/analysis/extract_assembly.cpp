// A model often splits its answer into "imports", "helper" and "solution" blocks: the chosen block is
// preceded by what it uses from the others (imports and helper definitions, transitively).
#include "analysis/extract_parts.hpp"

namespace e2beval::detail::extraction {

// The chosen code, preceded by the imports and helper definitions of the other sources that it uses but does
// not define itself (transitively: a helper's own helpers come too). A model often splits its answer into
// "imports", "helper" and "solution" blocks; running the solution block alone would fail with a NameError.
AssembledCode assemble_with_helpers(std::string_view chosen, const std::vector<CodeSource>& others,
                                    std::string_view source_word) {
    AssembledCode result;
    result.code = std::string(chosen);
    if (others.empty()) return result;
    std::vector<std::vector<TopLevelItem>> other_items;
    std::set<std::string> others_provide;
    for (const auto& other : others) {
        other_items.push_back(top_level_items(other.code));
        for (const auto& item : other_items.back()) others_provide.insert(item.names.begin(), item.names.end());
    }
    // The common case, a usage or test block that supplies nothing the chosen code uses, ends here.
    if (others_provide.empty()) return result;
    const auto chosen_references = referenced_names(chosen);
    if (std::none_of(others_provide.begin(), others_provide.end(),
                     [&](const std::string& name) { return chosen_references.contains(name); }))
        return result;
    const auto chosen_items = top_level_items(chosen);
    std::set<std::string> provided = defined_names(chosen, chosen_items);
    provided.merge(bound_names(chosen));
    std::set<std::string> needed;
    for (const auto& name : chosen_references)
        if (!provided.contains(name)) needed.insert(name);

    std::set<std::string> chosen_import_texts;
    for (const auto& item : chosen_items)
        if (item.kind == TopLevelItem::Kind::import) chosen_import_texts.insert(std::string(trim(item.text)));

    std::vector<std::vector<bool>> taken;
    for (const auto& items : other_items) taken.emplace_back(items.size(), false);

    bool changed = true;
    while (changed) {
        changed = false;
        for (std::size_t s = 0; s < other_items.size(); ++s) {
            for (std::size_t k = 0; k < other_items[s].size(); ++k) {
                const auto& item = other_items[s][k];
                if (taken[s][k] || item.kind == TopLevelItem::Kind::other ||
                    item.kind == TopLevelItem::Kind::future_import)
                    continue;
                const bool supplies_needed = std::any_of(item.names.begin(), item.names.end(), [&](const auto& n) {
                    return needed.contains(n) && !provided.contains(n);
                });
                if (!supplies_needed) continue;
                if (item.kind == TopLevelItem::Kind::import && chosen_import_texts.contains(std::string(trim(item.text))))
                    continue;
                taken[s][k] = true;
                changed = true;
                provided.insert(item.names.begin(), item.names.end());
                for (const auto& name : item.references)
                    if (!provided.contains(name)) needed.insert(name);
            }
        }
    }

    std::string imports;
    std::string helpers;
    for (std::size_t s = 0; s < other_items.size(); ++s) {
        std::string taken_here;
        for (std::size_t k = 0; k < other_items[s].size(); ++k) {
            if (!taken[s][k]) continue;
            const auto& item = other_items[s][k];
            const bool is_import = item.kind == TopLevelItem::Kind::import;
            (is_import ? imports : helpers) += item.text;
            if (!is_import) helpers += "\n\n";
            if (!taken_here.empty()) taken_here += ", ";
            taken_here += is_import ? std::string(trim(split_lines(item.text).front())) : item.names.front();
        }
        if (taken_here.empty()) continue;
        result.sources_used.push_back(others[s].index);
        result.note += (result.note.empty() ? "; plus from " : "; from ") + std::string(source_word) + " " +
                       std::to_string(others[s].index + 1) + ": " + taken_here;
    }
    if (result.sources_used.empty()) return result;

    // `from __future__` must stay the first statement, so the chosen code's own ones move to the top.
    std::string future_imports;
    std::string body;
    const auto chosen_lines = split_lines(chosen);
    std::vector<bool> is_future_line(chosen_lines.size(), false);
    for (const auto& item : chosen_items)
        if (item.kind == TopLevelItem::Kind::future_import) {
            future_imports += item.text;
            for (std::size_t line = item.first_line; line <= item.last_line; ++line) is_future_line[line - 1] = true;
        }
    for (std::size_t i = 0; i < chosen_lines.size(); ++i)
        if (!is_future_line[i] && !(body.empty() && is_blank(chosen_lines[i]))) body.append(chosen_lines[i]).append("\n");

    result.code = future_imports + imports + (imports.empty() ? "" : "\n") + helpers + body;
    return result;
}

}  // namespace e2beval::detail::extraction

// The scanner's rules for TypeScript. TypeScript is JavaScript with types, so the JavaScript rules (js-*) read
// it (javascript_rules.cpp); this file adds what only the TypeScript compiler does: its triple-slash directives,
// which make it read the files they name at compile time.
#include "analysis/typescript_rules.hpp"

#include "analysis/c_family_rules.hpp"

namespace e2beval::detail {

namespace rules_typescript {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The value of `name="..."` (or '...') in a directive's text.
std::optional<std::string_view> attribute(std::string_view directive, std::string_view name) {
    for (std::size_t at = directive.find(name); at != std::string_view::npos; at = directive.find(name, at + 1)) {
        if (at > 0 && !is_blank(directive[at - 1])) continue;
        std::size_t i = at + name.size();
        while (i < directive.size() && is_blank(directive[i])) ++i;
        if (i >= directive.size() || directive[i] != '=') continue;
        ++i;
        while (i < directive.size() && is_blank(directive[i])) ++i;
        if (i >= directive.size() || (directive[i] != '"' && directive[i] != '\'')) continue;
        const std::size_t close = directive.find(directive[i], i + 1);
        if (close == std::string_view::npos) return std::nullopt;
        return directive.substr(i + 1, close - i - 1);
    }
    return std::nullopt;
}

}  // namespace rules_typescript

// Triple-slash directives count only in the comments that open the file, before any statement: the lines read
// here are exactly those.
void scan_typescript_directives(std::string_view code, FindingSink& sink) {
    using namespace rules_typescript;
    std::size_t pos = 0;
    std::size_t line = 1;
    while (pos < code.size()) {
        const std::size_t line_end = std::min(code.find('\n', pos), code.size());
        std::string_view text = code.substr(pos, line_end - pos);
        std::size_t indent = 0;
        while (indent < text.size() && is_blank(text[indent])) ++indent;
        text.remove_prefix(indent);
        if (!text.empty() && !text.starts_with("//")) {
            if (!text.starts_with("/*")) return;
            const std::size_t close = code.find("*/", pos + indent + 2);
            if (close == std::string_view::npos) return;
            for (std::size_t i = pos; i < close; ++i) line += code[i] == '\n';
            pos = close + 2;
            continue;
        }
        if (text.starts_with("///")) {
            const std::string_view directive = text.substr(3);
            std::size_t start = 0;
            while (start < directive.size() && is_blank(directive[start])) ++start;
            const bool reference = directive.substr(start).starts_with("<reference");
            const bool amd = directive.substr(start).starts_with("<amd-dependency");
            if (reference || amd) {
                if (const auto path = attribute(directive, "path"); path && CFamilyScan::path_leaves_workspace(*path))
                    sink.add("ts-reference-path", line, indent + 1,
                             "/// <" + std::string(reference ? "reference" : "amd-dependency") + " path=\"" +
                                 std::string(path->substr(0, 80)) + "\"/>: the compiler reads a file outside the "
                                 "workspace (the sandbox shows it none of the host's; this is advice)");
            }
        }
        pos = line_end + 1;
        ++line;
    }
}

}  // namespace e2beval::detail

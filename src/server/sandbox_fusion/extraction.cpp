// SandboxFusion's default_extract_helper as linear scanners.
#include "server/sandbox_fusion/extraction.hpp"
#include "server/sandbox_fusion/text.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace e2beval::server::sandbox_fusion {

namespace {

struct Block {
    int priority = 0;
    std::string language;
    std::string code;
};

// ```TAG\nCODE\n<whitespace>``` , non-overlapping, left to right (upstream's fenced_code_block_pattern).
std::vector<Block> complete_fences(std::string_view text) {
    std::vector<Block> blocks;
    std::size_t from = 0;
    while (true) {
        const auto open = text.find("```", from);
        if (open == std::string_view::npos) break;
        const auto tag_end = text.find('\n', open + 3);
        if (tag_end == std::string_view::npos) break;
        const auto content = tag_end + 1;
        std::optional<std::pair<std::size_t, std::size_t>> close;  // (content end, match end)
        // The first newline at or after `content` that whitespace then ``` follows. Every newline inside one run of
        // whitespace reaches the same end of the run, so the scan jumps past the run: linear in the text.
        for (auto newline = text.find('\n', content); newline != std::string_view::npos;) {
            auto end = newline + 1;
            while (end < text.size() && is_space(text[end])) ++end;
            if (text.substr(end, 3) == "```") {
                close.emplace(newline, end + 3);
                break;
            }
            newline = text.find('\n', end);
        }
        // No closing fence after this opening: none after a later one either.
        if (!close) break;
        const auto tag = strip(text.substr(open + 3, tag_end - open - 3));
        blocks.push_back({30, std::string(fence_language(tag)), std::string(text.substr(content, close->first - content))});
        from = close->second;
    }
    return blocks;
}

// ```TAG\n and everything after it (upstream's greedy incomplete_fenced_code_block_pattern: one match at most).
std::vector<Block> incomplete_fence(std::string_view text) {
    const auto open = text.find("```");
    if (open == std::string_view::npos) return {};
    const auto tag_end = text.find('\n', open + 3);
    if (tag_end == std::string_view::npos) return {};
    const auto tag = strip(text.substr(open + 3, tag_end - open - 3));
    return {{20, std::string(fence_language(tag)), std::string(text.substr(tag_end + 1))}};
}

std::vector<std::string_view> non_blank_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const auto line = text.substr(start, end - start);
        if (!strip(line).empty()) lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

bool starts_with_any(std::string_view line, std::initializer_list<std::string_view> prefixes) {
    for (const auto prefix : prefixes)
        if (line.starts_with(prefix) && line.size() > prefix.size()) return true;
    return false;
}

// Python: `def`/`class` lines followed by indented lines, with the import/from/# lines right before them, on the
// text without blank lines (upstream's pattern_py).
std::vector<Block> python_heuristic(std::string_view text) {
    const auto lines = non_blank_lines(text);
    const auto is_head = [&](std::size_t i) { return starts_with_any(lines[i], {"def ", "class "}); };
    const auto is_body = [&](std::size_t i) { return i < lines.size() && is_space(lines[i].front()); };
    const auto is_preamble = [&](std::size_t i) { return starts_with_any(lines[i], {"import", "from", "#"}); };
    std::vector<Block> blocks;
    std::size_t i = 0;
    while (i < lines.size()) {
        std::size_t head = i;
        while (head < lines.size() && !is_head(head) && is_preamble(head)) ++head;
        if (head < lines.size() && is_head(head) && is_body(head + 1)) {
            std::size_t end = head + 1;
            while (is_body(end)) ++end;
            std::string code;
            for (std::size_t k = i; k < end; ++k) code.append(lines[k]).push_back('\n');
            blocks.push_back({10, "python", std::move(code)});
            i = end;
        } else {
            // Every start from i to head fails for the same reason (the same head, or none): go past them all.
            i = head + 1;
        }
    }
    return blocks;
}

}  // namespace

std::string_view fence_language(std::string_view tag) noexcept {
    // upstream's language_to_aliases, inverted as its dict comprehension inverts it (a later list wins: "javascript"
    // is its own language there, while "js" and "JS" are nodejs).
    static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
        {"python", "python"}, {"Python", "python"}, {"py", "python"}, {"Python3", "python"}, {"python3", "python"},
        {"PY", "python"}, {"cpp", "cpp"}, {"c++", "cpp"}, {"C++", "cpp"}, {"Cpp", "cpp"}, {"CPP", "cpp"},
        {"JS", "nodejs"}, {"js", "nodejs"}, {"go", "go"}, {"Go", "go"}, {"java", "java"}, {"Java", "java"},
        {"php", "php"}, {"PHP", "php"}, {"csharp", "csharp"}, {"c#", "csharp"}, {"C#", "csharp"}, {"bash", "bash"},
        {"Bash", "bash"}, {"BASH", "bash"}, {"sh", "bash"}, {"shell", "bash"}, {"typescript", "typescript"},
        {"rust", "rust"}, {"Rust", "rust"}, {"rs", "rust"}, {"sql", "sql"}, {"SQL", "sql"}, {"Sql", "sql"}, {"D", "D"},
        {"d", "D"}, {"julia", "julia"}, {"Julia", "julia"}, {"jl", "julia"}, {"lua", "lua"}, {"Lua", "lua"},
        {"perl", "perl"}, {"Perl", "perl"}, {"PERL", "perl"}, {"R", "R"}, {"r", "R"}, {"ruby", "ruby"},
        {"Ruby", "ruby"}, {"scala", "scala"}, {"Scala", "scala"}, {"kotlin", "kotlin"}, {"Kotlin", "kotlin"},
        {"c", "c"}, {"C", "c"}, {"html", "html"}, {"Html", "html"}, {"HTML", "html"}, {"javascript", "javascript"},
        {"Javascript", "javascript"}, {"JavaScript", "javascript"}, {"verilog", "verilog"}, {"Verilog", "verilog"},
        {"VERILOG", "verilog"}, {"racket", "racket"}, {"swift", "swift"},
    };
    if (tag.empty()) return "";
    for (const auto& [alias, language] : kAliases)
        if (alias == tag) return language;
    return "";
}

ExtractedCode extract_code(std::string_view completion, std::string_view language) {
    auto blocks = complete_fences(completion);
    if (language == "python") {
        auto heuristic = python_heuristic(completion);
        blocks.insert(blocks.end(), heuristic.begin(), heuristic.end());
    } else if (language == "bash") {
        std::string code;
        for (const auto line : non_blank_lines(completion)) code.append(line).push_back('\n');
        if (code.empty()) code = "\n";  // upstream's "\n".join([]) + "\n"
        blocks.push_back({10, "bash", std::move(code)});
    }
    auto incomplete = incomplete_fence(completion);
    blocks.insert(blocks.end(), incomplete.begin(), incomplete.end());
    if (blocks.empty()) return {};
    int best = 0;
    for (const auto& block : blocks) best = std::max(best, block.priority);
    const Block* chosen = nullptr;
    for (const auto& block : blocks) {
        if (block.priority != best) continue;
        if (!chosen) chosen = &block;
        if (block.language == language) {
            chosen = &block;
            break;
        }
    }
    ExtractedCode extracted;
    extracted.code = chosen->code;
    extracted.type = best == 30 ? "fenced" : best == 20 ? "incomplete_fenced" : "heuristic";
    return extracted;
}

}  // namespace e2beval::server::sandbox_fusion

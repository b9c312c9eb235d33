// The fenced blocks of a model's answer: ``` and ~~~ fences (CommonMark's rules for opening and closing),
// their tags read as languages, and a >>> session inside one turned into the code typed at its prompts.
#include "analysis/extract_parts.hpp"

#include <algorithm>

namespace e2beval::detail::extraction {

namespace {

struct Fence {
    char marker = '`';
    std::size_t length = 0;
    std::size_t indentation = 0;
    std::string_view info;
};

std::optional<Fence> opening_fence(std::string_view line) {
    Fence fence;
    fence.indentation = leading_whitespace(line);
    const std::string_view rest = line.substr(fence.indentation);
    if (rest.empty() || (rest[0] != '`' && rest[0] != '~')) return std::nullopt;
    fence.marker = rest[0];
    fence.length = std::min(rest.find_first_not_of(fence.marker), rest.size());
    if (fence.length < 3) return std::nullopt;
    fence.info = trim(rest.substr(fence.length));
    // CommonMark: a backtick fence's info string has no backtick, so ```x``` inline in a line is not a fence.
    if (fence.marker == '`' && fence.info.find('`') != std::string_view::npos) return std::nullopt;
    return fence;
}

bool closes_fence(std::string_view line, const Fence& fence) {
    const std::string_view rest = line.substr(leading_whitespace(line));
    const std::size_t run = std::min(rest.find_first_not_of(fence.marker), rest.size());
    return run >= fence.length && is_blank(rest.substr(run));
}

// "python title=x.py" -> "python"; "{.python}" and "python:main.py" keep their spelling as the tag.
std::string_view first_word(std::string_view info) {
    const std::size_t end = info.find_first_of(" \t");
    return info.substr(0, end);
}

std::optional<Language> language_of_tag(std::string_view tag) {
    std::string_view cleaned = tag;
    while (!cleaned.empty() && (cleaned.front() == '{' || cleaned.front() == '.')) cleaned.remove_prefix(1);
    cleaned = cleaned.substr(0, cleaned.find_first_of(":,{}"));
    if (cleaned.empty()) return std::nullopt;
    return language_from_tag(cleaned);
}

// A block written as an interactive session (`>>> ` and `... ` prompts, output lines in between) becomes the
// code typed at the prompts; the output lines are dropped.
std::string strip_repl_session(const std::string& code, bool& was_session) {
    const auto lines = split_lines(code);
    const auto first = std::find_if(lines.begin(), lines.end(), [](std::string_view line) { return !is_blank(line); });
    if (first == lines.end() || !(first->starts_with(">>> ") || *first == ">>>")) return code;
    was_session = true;
    std::string result;
    for (const auto line : lines) {
        if (line.starts_with(">>> ") || line.starts_with("... ")) result.append(line.substr(4)).append("\n");
        else if (line == ">>>" || line == "...") result += '\n';
    }
    return result;
}

}  // namespace

std::vector<FoundBlock> find_fenced_blocks(const std::vector<std::string_view>& lines) {
    std::vector<FoundBlock> blocks;
    std::size_t i = 0;
    while (i < lines.size()) {
        const auto fence = opening_fence(lines[i]);
        if (!fence) {
            ++i;
            continue;
        }
        FoundBlock found;
        found.block.first_line = i + 1;
        found.block.tag = std::string(first_word(fence->info));
        found.block.language = language_of_tag(found.block.tag);
        found.fence_text = std::string(fence->length, fence->marker) + found.block.tag;
        std::size_t j = i + 1;
        while (j < lines.size() && !closes_fence(lines[j], *fence)) {
            found.block.code.append(strip_indentation(lines[j], fence->indentation));
            found.block.code += '\n';
            ++j;
        }
        found.block.terminated = j < lines.size();
        found.block.code = strip_repl_session(found.block.code, found.repl_session);
        blocks.push_back(std::move(found));
        i = j + 1;
    }
    return blocks;
}

}  // namespace e2beval::detail::extraction

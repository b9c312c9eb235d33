// The unified diff in a model's answer: models wrap it in fences and prose ("Here is the fix: ```diff ... ```
// This changes ..."); SWE-bench predictions are bare diffs. Both give the same diff here.
#include <cstdio>
#include <sstream>
#include <string_view>
#include <vector>

#include "e2beval/swe/patch.hpp"

namespace e2beval::swe {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    std::istringstream input(text);
    while (std::getline(input, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

bool is_diff_header(const std::vector<std::string>& lines, std::size_t at) {
    const auto& line = lines[at];
    if (starts_with(line, "diff --git ") || starts_with(line, "Index: ")) return true;
    return starts_with(line, "--- ") && at + 1 < lines.size() && starts_with(lines[at + 1], "+++ ");
}

// A diff's lines end with hunk lines (" ", "+", "-", "\ No newline"): prose after the last one is dropped.
std::string join_trimmed(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
    while (to > from) {
        const auto& last = lines[to - 1];
        if (!last.empty() && (last[0] == ' ' || last[0] == '+' || last[0] == '-' || last[0] == '\\')) break;
        // A header-only diff (a deleted empty file, a mode change) ends in header lines: keep those too.
        if (starts_with(last, "deleted file mode") || starts_with(last, "new file mode") || starts_with(last, "new mode") ||
            starts_with(last, "index ") || starts_with(last, "rename to") || starts_with(last, "copy to") ||
            starts_with(last, "similarity index"))
            break;
        --to;
    }
    std::string diff;
    for (auto i = from; i < to; ++i) diff += lines[i] + "\n";
    return diff;
}

std::string_view trim_left(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    return first == std::string_view::npos ? std::string_view{} : text.substr(first);
}

// Hunks whose last context lines were blank lose them when the answer is trimmed (promptfoo trims its vars,
// chat front-ends trim messages): a hunk that ends short by only context lines gets them back as empty context
// lines, so `git apply` takes the diff as it was made.
std::vector<std::string> restore_trimmed_context(const std::vector<std::string>& lines) {
    std::vector<std::string> repaired;
    long old_left = 0, new_left = 0;
    auto close_hunk = [&] {
        if (old_left > 0 && old_left == new_left)
            for (; old_left > 0; --old_left, --new_left) repaired.emplace_back(" ");
        old_left = new_left = 0;
    };
    for (const auto& line : lines) {
        const bool in_hunk = old_left > 0 || new_left > 0;
        if (in_hunk && !line.empty() && line[0] != ' ' && line[0] != '+' && line[0] != '-' && line[0] != '\\') close_hunk();
        else if (in_hunk && (starts_with(line, "--- ") || starts_with(line, "diff --git ")) && old_left == new_left) close_hunk();
        if (old_left > 0 || new_left > 0) {
            if (!line.empty() && line[0] == '+') --new_left;
            else if (!line.empty() && line[0] == '-') --old_left;
            else if (line.empty() || line[0] == ' ') {
                --old_left;
                --new_left;
            }
        } else if (starts_with(line, "@@ -")) {
            long a = 0, b = 1, c = 0, d = 1;
            if (std::sscanf(line.c_str(), "@@ -%ld,%ld +%ld,%ld @@", &a, &b, &c, &d) == 4 ||
                (b = 1, d = 1, std::sscanf(line.c_str(), "@@ -%ld +%ld,%ld @@", &a, &c, &d) == 3) ||
                (b = 1, d = 1, std::sscanf(line.c_str(), "@@ -%ld,%ld +%ld @@", &a, &b, &c) == 3) ||
                (b = 1, d = 1, std::sscanf(line.c_str(), "@@ -%ld +%ld @@", &a, &c) == 2)) {
                old_left = b;
                new_left = d;
            }
        }
        repaired.push_back(line);
    }
    close_hunk();
    return repaired;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
}

std::string repaired(const std::string& diff) {
    if (diff.empty()) return diff;
    return joined(restore_trimmed_context(split_lines(diff)));
}

std::string extract_diff_text(const std::string& answer);

}  // namespace

std::string extract_diff(const std::string& answer) { return repaired(extract_diff_text(answer)); }

namespace {

std::string extract_diff_text(const std::string& answer) {
    const auto lines = split_lines(answer);
    // A bare diff (SWE-bench's predictions) is taken whole, even when it holds ``` lines of its own.
    std::size_t first = 0;
    while (first < lines.size() && trim_left(lines[first]).empty()) ++first;
    if (first < lines.size() && is_diff_header(lines, first)) return join_trimmed(lines, first, lines.size());

    // A fenced block that holds a diff: ```diff / ```patch, or any fence whose body starts with a diff header.
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto open = trim_left(lines[i]);
        if (!starts_with(open, "```")) continue;
        std::size_t close = i + 1;
        while (close < lines.size() && !starts_with(trim_left(lines[close]), "```")) ++close;
        std::size_t body = i + 1;
        while (body < close && trim_left(lines[body]).empty()) ++body;
        const auto tag = open.substr(3);
        if (body < close && (starts_with(tag, "diff") || starts_with(tag, "patch") || is_diff_header(lines, body)))
            return join_trimmed(lines, body, close);
        i = close;
    }

    // Prose around an unfenced diff: from its first header to its last hunk line.
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (is_diff_header(lines, i)) return join_trimmed(lines, i, lines.size());
    return {};
}

}  // namespace

}  // namespace e2beval::swe

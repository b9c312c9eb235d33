// The files a diff touches, read from its headers (hunk bodies are skipped by their line counts, so a removed
// line that reads "-- x" is never taken for a header), and the checks that refuse a patch before it is applied:
// paths out of the repository, symlinks out of it, git's own directory, protected test files.
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "e2beval/swe/patch.hpp"

namespace e2beval::swe {

namespace {

bool has_prefix(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// "a/x.py\t2024-01-01 ..." → "x.py"; git's quoted form "\"a/x y.py\"" loses its quotes.
std::string header_path(std::string_view text, bool strip_prefix) {
    if (const auto tab = text.find('\t'); tab != std::string_view::npos) text = text.substr(0, tab);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
    if (text == "/dev/null") return std::string(text);
    if (strip_prefix && (has_prefix(text, "a/") || has_prefix(text, "b/"))) text.remove_prefix(2);
    return std::string(text);
}

// "@@ -12,3 +12,4 @@": how many old and new lines the hunk body holds (a count left out is 1).
bool hunk_counts(const std::string& line, long& old_lines, long& new_lines) {
    long old_start = 0, new_start = 0;
    old_lines = new_lines = 1;
    if (std::sscanf(line.c_str(), "@@ -%ld,%ld +%ld,%ld @@", &old_start, &old_lines, &new_start, &new_lines) == 4) return true;
    old_lines = new_lines = 1;
    if (std::sscanf(line.c_str(), "@@ -%ld +%ld,%ld @@", &old_start, &new_start, &new_lines) == 3) return true;
    new_lines = 1;
    if (std::sscanf(line.c_str(), "@@ -%ld,%ld +%ld @@", &old_start, &old_lines, &new_start) == 3) return true;
    old_lines = 1;
    return std::sscanf(line.c_str(), "@@ -%ld +%ld @@", &old_start, &new_start) == 2;
}

struct ParsedPatch {
    std::vector<PatchedFile> files;
    std::vector<std::string> mentioned;  // every path any header names (Index:, rename/copy, ---/+++)
};

ParsedPatch parse(const std::string& diff) {
    ParsedPatch parsed;
    std::istringstream input(diff);
    std::vector<std::string> lines;
    for (std::string line; std::getline(input, line);) lines.push_back(line);
    PatchedFile* current = nullptr;
    bool header_of_git_diff = false;
    bool symlink_expected = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto& line = lines[i];
        if (has_prefix(line, "diff --git ")) {
            parsed.files.emplace_back();
            current = &parsed.files.back();
            header_of_git_diff = true;
            symlink_expected = false;
            const std::string_view rest = std::string_view(line).substr(11);
            if (const auto split = rest.find(" b/"); split != std::string_view::npos) {
                current->old_path = header_path(rest.substr(0, split), true);
                current->new_path = header_path(rest.substr(split + 1), true);
            } else {
                current->old_path = current->new_path = header_path(rest, false);
            }
            parsed.mentioned.push_back(current->old_path);
            parsed.mentioned.push_back(current->new_path);
        } else if (has_prefix(line, "Index: ")) {
            parsed.mentioned.push_back(header_path(std::string_view(line).substr(7), false));
        } else if (has_prefix(line, "--- ") && i + 1 < lines.size() && has_prefix(lines[i + 1], "+++ ")) {
            if (!header_of_git_diff || !current) {
                parsed.files.emplace_back();
                current = &parsed.files.back();
            }
            current->old_path = header_path(std::string_view(line).substr(4), true);
            current->new_path = header_path(std::string_view(lines[i + 1]).substr(4), true);
            parsed.mentioned.push_back(current->old_path);
            parsed.mentioned.push_back(current->new_path);
            header_of_git_diff = false;
            ++i;
        } else if (current && (has_prefix(line, "rename from ") || has_prefix(line, "copy from "))) {
            current->old_path = header_path(std::string_view(line).substr(line.find(" from ") + 6), false);
            parsed.mentioned.push_back(current->old_path);
        } else if (current && (has_prefix(line, "rename to ") || has_prefix(line, "copy to "))) {
            current->new_path = header_path(std::string_view(line).substr(line.find(" to ") + 4), false);
            parsed.mentioned.push_back(current->new_path);
        } else if (current && (has_prefix(line, "new file mode 120000") || has_prefix(line, "new mode 120000"))) {
            current->symlink = true;
            symlink_expected = true;
        } else if (has_prefix(line, "@@ ")) {
            long old_lines = 0, new_lines = 0;
            if (!hunk_counts(line, old_lines, new_lines)) continue;
            // The hunk's body: skipped by its counts, the symlink's target taken from its added line.
            while ((old_lines > 0 || new_lines > 0) && i + 1 < lines.size()) {
                const auto& body = lines[++i];
                if (has_prefix(body, "\\")) continue;
                const char kind = body.empty() ? ' ' : body[0];
                if (kind == '+') {
                    --new_lines;
                    if (symlink_expected && current && current->symlink_target.empty()) current->symlink_target = body.substr(1);
                } else if (kind == '-') {
                    --old_lines;
                } else {
                    --old_lines;
                    --new_lines;
                }
            }
        }
    }
    return parsed;
}

// Why `path` (repository-relative) is not a path inside the repository, or empty when it is.
std::string path_problem(const std::string& path) {
    if (path == "/dev/null") return {};
    if (path.empty()) return "a file header names no path";
    if (path[0] == '/') return "it names an absolute path (" + path + ")";
    for (const auto& part : std::filesystem::path(path)) {
        if (part == "..") return "it climbs out of the repository with '..' (" + path + ")";
        if (part == ".git") return "it writes into git's own directory (" + path + ")";
    }
    return {};
}

}  // namespace

std::vector<PatchedFile> patched_files(const std::string& diff) { return parse(diff).files; }

std::optional<std::string> refuse_reason(const std::string& diff, const PatchCheckOptions& options) {
    const auto parsed = parse(diff);
    for (const auto& path : parsed.mentioned)
        if (auto problem = path_problem(path); !problem.empty()) return "the patch touches a path outside the repository: " + problem;
    for (const auto& file : parsed.files) {
        if (!file.symlink) continue;
        const auto& target = file.symlink_target;
        if (target.empty() || target[0] == '/')
            return "the patch creates a symlink out of the repository: " + file.new_path + " -> " + target;
        // Resolved from the link's own directory; lexically, as the repository's files are ours (the base
        // commit's) and any symlink among them was checked when it was made.
        const auto resolved = (std::filesystem::path(file.new_path).parent_path() / target).lexically_normal();
        if (resolved.empty() || *resolved.begin() == "..")
            return "the patch creates a symlink out of the repository: " + file.new_path + " -> " + target;
    }
    for (const auto& file : parsed.files)
        for (const auto& path : {file.old_path, file.new_path})
            if (std::find(options.protected_paths.begin(), options.protected_paths.end(), path) != options.protected_paths.end())
                return "the patch edits a test file (" + path + "); the tests are not the model's to change";
    return std::nullopt;
}

}  // namespace e2beval::swe

// What is done to a model's patch before it reaches the sandbox: the diff pulled out of a raw answer, the files
// it touches read from its headers, and the checks that refuse a patch before anything is applied.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace e2beval::swe {

// The unified diff in a model's answer: the first fenced block that holds a diff (```diff, ```patch or any
// fence whose text starts like a diff), else the text from the first diff header ("diff --git", "--- ") to the
// end. Trailing prose after the last hunk is dropped, and the result ends with a newline. Empty when the
// answer holds no diff.
std::string extract_diff(const std::string& answer);

// One file a diff touches, as its headers say.
struct PatchedFile {
    std::string old_path;  // without the a/ prefix; "/dev/null" for a new file
    std::string new_path;  // without the b/ prefix; "/dev/null" for a deleted file
    bool symlink = false;  // mode 120000: the added content is the link's target
    std::string symlink_target;
};

std::vector<PatchedFile> patched_files(const std::string& diff);

struct PatchCheckOptions {
    // Files the patch may not touch (the test files, when asked): exact repository-relative paths.
    std::vector<std::string> protected_paths;
};

// Why the patch must not be applied, or nullopt when it may: a path that is absolute or climbs out with "..",
// a symlink whose target leaves the repository, a touched protected file.
std::optional<std::string> refuse_reason(const std::string& diff, const PatchCheckOptions& options = {});

}  // namespace e2beval::swe

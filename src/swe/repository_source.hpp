// The repository of an instance, read on the host as a tar of its tree at the base commit: from a git
// checkout, a git bundle or a tarball. Only the tree goes into the sandbox, never the host's .git.
#pragma once

#include <string>

namespace e2beval::swe {

// A tar archive (uncompressed) of `repo`'s files at `base_commit` (empty: as they are). Throws input_error
// saying what is wrong with the repository or the commit.
std::string repository_tree_tar(const std::string& repo, const std::string& base_commit);

}  // namespace e2beval::swe

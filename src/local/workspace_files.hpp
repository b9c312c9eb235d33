// Files a request puts into the sandbox's workspace (ExecRequest::files) and paths it collects from it
// (ExecRequest::collect): checked on the host, turned into the init's plan (directories first).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "e2beval/core/types.hpp"
#include "local/fd.hpp"
#include "local/spawn_plan.hpp"

namespace e2beval::local {

// Throws input_error for a path that is absolute, empty, holds "." or ".." components or a NUL, for a mode
// beyond 0777, and for too many collected paths.
void check_workspace_files(const ExecRequest& request);
void check_workspace_path(const std::string& path, const char* what);

// The plan's entries for `files` under `workspace` (an absolute path inside the sandbox): each file's parent
// directories (0755) before it.
std::vector<SpawnPlan::WorkspaceEntry> workspace_entries(const std::vector<WorkspaceFile>& files, const std::string& workspace);

// Reads the files a sandbox's init passed as fds (path relative to the workspace, fd), in order, once nothing in
// the sandbox can change them: each a regular file of at most `cap_bytes` (others are left out). Empties `fds`.
std::vector<WorkspaceFile> read_collected_files(std::vector<std::pair<std::string, UniqueFd>>& fds, std::uint64_t cap_bytes);

}  // namespace e2beval::local

// Mount steps, child side: applying the steps the parent planned (mountns.hpp), and the options of the
// two writable, size-limited tmpfs mounts (the workspace and /dev/shm). The warm pool's zygote mounts
// each execution's own workspace with the same options and the same code (warm_steps.cpp).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "local/spawn_plan.hpp"

namespace e2beval::local {

// Most bind steps a plan may hold (the child keeps their tree fds in a fixed array).
inline constexpr int kMaxHostTrees = 64;

// Child side, first phase, still as the host identity that may traverse host paths (e.g. pyenv under
// /root): clones every bind step's host path into a detached, already read-only mount tree.
StepError clone_host_trees(const std::vector<MountStep>& steps, int (&tree_fds)[kMaxHostTrees]) noexcept;

// Child side, second phase, as the sandbox user: performs one step. Must not allocate.
StepError apply_mount_step(const MountStep& step, const int (&tree_fds)[kMaxHostTrees]) noexcept;

// Who owns the workspace's root directory; left out when a mounted tmpfs is only resized (remount).
struct WorkspaceOwner {
    uid_t uid;
    gid_t gid;
};

struct WorkspaceMountOptions {
    std::string workspace;  // tmpfs options of /tmp, the working directory and $HOME
    std::string shm;        // tmpfs options of /dev/shm
};

// The tmpfs options for a workspace of `bytes`: /dev/shm gets a quarter of it (plus a page) and few inodes.
WorkspaceMountOptions workspace_mount_options(std::uint64_t bytes, std::optional<WorkspaceOwner> owner);

// Remounts (resizes) the tmpfs at `target` with `options` (from workspace_mount_options without an owner).
StepError resize_tmpfs(const char* target, const std::string& options) noexcept;

}  // namespace e2beval::local

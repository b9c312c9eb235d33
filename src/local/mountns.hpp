// Mount namespace: a fresh tmpfs root holding only what the interpreter needs, read-only, plus a fresh
// /proc, a minimal /dev, a size-limited tmpfs workspace, generated /etc files; the host's root detached.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "local/mount_steps.hpp"

namespace e2beval::local {

struct RootFilesystemSpec {
    std::vector<std::string> read_only_paths;  // host paths bound read-only at path_inside(path)
    std::uint64_t workspace_bytes = 0;         // size of the tmpfs mounted at /tmp (the working directory)
    uid_t inside_uid = 1000;
    gid_t inside_gid = 1000;
};

// Where host paths under /tmp appear inside: the sandbox's /tmp is its workspace, and an interpreter in a
// checkout or virtualenv under the host's /tmp bound there would show the host's directory names in it
// (and be hidden by the workspace's tmpfs). /tmp/a/b is bound at /run/e2beval/host-tmp/a/b instead.
inline constexpr std::string_view kHostTmpInside = "/run/e2beval/host-tmp";

// The path inside the sandbox of the read-only bound `host_path`: the same path, except under /tmp.
// Every interpreter path handed to the sandbox (the executable, $E2BEVAL_NODE) goes through it.
std::string path_inside(const std::string& host_path);

// Parent side: the ordered mount steps for `spec`. Host paths that do not exist are skipped; a host path
// that is a symlink (merged /usr: /bin -> usr/bin) becomes the same symlink inside.
std::vector<MountStep> plan_root_filesystem(const RootFilesystemSpec& spec);

// Adds `link` (e.g. /home/user) as a symlink to the workspace /tmp, before the plan enters its root:
// sessions use E2B's home directory while the workspace stays the one writable, size-limited place.
void add_workspace_link(std::vector<MountStep>& steps, const std::string& link);

}  // namespace e2beval::local

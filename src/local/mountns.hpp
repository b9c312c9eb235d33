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
    std::uint64_t workspace_bytes = 0;         // size of the one writable tmpfs (the workspace; /dev/shm aside)
    // Empty: the workspace is /tmp, which is also the home and the working directory (one-shot executions).
    // A path (sessions: E2B's /home/user): the home is a directory of its own and /tmp another, both on the
    // workspace's one tmpfs, so together they hold at most workspace_bytes.
    std::string home_directory;
    std::string login_shell = "/bin/sh";  // the sandbox user's shell in the generated /etc/passwd
    uid_t inside_uid = 1000;
    gid_t inside_gid = 1000;
};

// A session's home directory and working directory, as on E2B.
inline constexpr std::string_view kSessionHome = "/home/user";

// Where host paths under /tmp appear inside: the sandbox's /tmp is its workspace, and an interpreter in a
// checkout or virtualenv under the host's /tmp bound there would show the host's directory names in it
// (and be hidden by the workspace's tmpfs). /tmp/a/b is bound at /run/e2beval/host-tmp/a/b instead.
inline constexpr std::string_view kHostTmpInside = "/run/e2beval/host-tmp";
// The same for host paths under /home/user (a host user named "user" with a virtualenv in its home), which a
// session's own home would hide: /home/user/a is bound at /run/e2beval/host-home-user/a.
inline constexpr std::string_view kHostHomeInside = "/run/e2beval/host-home-user";

// The path inside the sandbox of the read-only bound `host_path`: the same path, except under /tmp and
// /home/user. Every interpreter path handed to the sandbox (the executable, $E2BEVAL_NODE) goes through it.
std::string path_inside(const std::string& host_path);

// Parent side: the ordered mount steps for `spec`. Host paths that do not exist are skipped; a host path
// that is a symlink (merged /usr: /bin -> usr/bin) becomes the same symlink inside.
std::vector<MountStep> plan_root_filesystem(const RootFilesystemSpec& spec);

// Where the path `inside` of the sandbox is while the child assembles its root (mount steps name these).
std::string path_while_assembling(std::string_view inside);

// Inserts `steps` just before the plan enters its root (after everything plan_root_filesystem mounts).
void insert_before_entering_root(std::vector<MountStep>& plan, const std::vector<MountStep>& steps);

}  // namespace e2beval::local

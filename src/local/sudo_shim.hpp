// The `sudo` of a session's sandbox (sudo_shim.sh): E2B's user has passwordless sudo, so code written for E2B
// calls it; e2beval's runs the command as the same unprivileged user and grants nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "local/spawn_plan.hpp"

namespace e2beval::local {

// Where the script is inside the sandbox; the session appends this directory to its PATH.
inline constexpr std::string_view kSudoShimDirectory = "/run/e2beval/bin";

struct SudoShimSteps {
    // Before the plan enters its root: the script at kSudoShimDirectory/sudo (mode 0555, owned by the sandbox
    // user, on the root's nosuid tmpfs, read-only once the root is).
    std::vector<MountStep> before_entering_root;
    // After (paths, and the symlinks on them, resolve inside): the script bound over every regular file named
    // `sudo` in the program directories, so a host's real, setuid sudo is never what runs, whatever path calls it.
    std::vector<MountStep> after_entering_root;
};

// The steps for a sandbox whose PATH names `program_directories`; the usual system directories are covered too.
SudoShimSteps sudo_shim_steps(const std::vector<std::string>& program_directories);

// The directories of a PATH value ("/a:/b" -> {"/a", "/b"}), absolute ones only.
std::vector<std::string> path_directories(std::string_view path);

}  // namespace e2beval::local

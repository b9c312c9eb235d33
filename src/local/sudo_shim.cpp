// See sudo_shim.hpp. Planned in the parent as mount steps; the child only writes the file and binds it.
#include "local/sudo_shim.hpp"

#include <algorithm>
#include <filesystem>

#include "local/mountns.hpp"
#include "local/sudo_shim_source.hpp"

namespace e2beval::local {

namespace {

// Where a real sudo may be although the sandbox's PATH does not name the directory (`/usr/bin/sudo` called by
// its path): these are covered too.
const std::vector<std::string> kSystemProgramDirectories = {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
                                                            "/usr/bin", "/sbin", "/bin"};

}  // namespace

std::vector<std::string> path_directories(std::string_view path) {
    std::vector<std::string> directories;
    while (!path.empty()) {
        const auto colon = path.find(':');
        const auto entry = path.substr(0, colon);
        if (!entry.empty() && entry.front() == '/') directories.emplace_back(entry);
        if (colon == std::string_view::npos) break;
        path.remove_prefix(colon + 1);
    }
    return directories;
}

SudoShimSteps sudo_shim_steps(const std::vector<std::string>& program_directories) {
    using Kind = MountStep::Kind;
    const std::string shim = std::string(kSudoShimDirectory) + "/sudo";
    SudoShimSteps steps;
    std::filesystem::path partial;
    for (const auto& part : std::filesystem::path(std::string(kSudoShimDirectory))) {
        partial /= part;
        if (partial != "/") steps.before_entering_root.push_back({Kind::directory, {}, path_while_assembling(partial.string()), {}, 0755});
    }
    steps.before_entering_root.push_back({Kind::file, {}, path_while_assembling(shim), kSudoShimSource, 0555});
    auto directories = program_directories;
    directories.insert(directories.end(), kSystemProgramDirectories.begin(), kSystemProgramDirectories.end());
    std::vector<std::string> covered;
    for (const auto& directory : directories) {
        const auto candidate = (std::filesystem::path(directory) / "sudo").lexically_normal().string();
        if (candidate == shim || std::find(covered.begin(), covered.end(), candidate) != covered.end()) continue;
        covered.push_back(candidate);
        steps.after_entering_root.push_back({Kind::cover_existing, shim, candidate, {}, 0});
    }
    return steps;
}

}  // namespace e2beval::local

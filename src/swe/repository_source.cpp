// Reads an instance's repository on the host: `git archive` of the base commit for a checkout or a bundle
// (cloned into a temporary directory first), a tarball unpacked first. Everything the sandbox gets is the tar.
#include "swe/repository_source.hpp"

#include <filesystem>

#include "e2beval/core/error.hpp"
#include "core/host_command.hpp"
#include "swe/temporary_directory.hpp"

namespace fs = std::filesystem;

namespace e2beval::swe {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string failed(const HostCommandResult& result) {
    auto text = result.errors.empty() ? result.output : result.errors;
    if (text.size() > 2000) text.resize(2000);
    return text;
}

// git with the user's and the system's configuration left out, and any owner of the directory accepted (a
// checkout made by another user, as in CI).
std::vector<std::string> git(const std::string& directory, std::vector<std::string> arguments) {
    std::vector<std::string> command = {"git", "-c", "safe.directory=*", "-C", directory};
    command.insert(command.end(), arguments.begin(), arguments.end());
    return command;
}

std::string tree_of_checkout(const std::string& directory, const std::string& base_commit, const std::string& repo) {
    if (base_commit.empty()) {
        const auto result = run_on_host({"tar", "-C", directory, "--exclude=./.git", "-cf", "-", "."});
        if (result.exit_status != 0) throw input_error("cannot read the repository " + repo + ": " + failed(result));
        return result.output;
    }
    if (!fs::exists(fs::path(directory) / ".git"))
        throw input_error("the repository " + repo + " is not a git checkout, so base_commit " + base_commit +
                          " cannot be read: give a git directory or bundle, or leave base_commit out");
    const auto result = run_on_host(git(directory, {"archive", "--format=tar", base_commit + "^{commit}"}));
    if (result.exit_status != 0)
        throw input_error("cannot read commit " + base_commit + " of " + repo + ": " + failed(result));
    return result.output;
}

// A tarball's single top directory (how sdists and GitHub archives are made) is the repository's root.
std::string unpacked_root(const std::string& directory) {
    std::vector<fs::path> entries;
    for (const auto& entry : fs::directory_iterator(directory)) entries.push_back(entry.path());
    if (entries.size() == 1 && fs::is_directory(entries[0]) && !fs::exists(fs::path(directory) / ".git")) return entries[0].string();
    return directory;
}

}  // namespace

std::string repository_tree_tar(const std::string& repo, const std::string& base_commit) {
    if (!fs::exists(repo)) throw input_error("the repository " + repo + " does not exist (a directory, a git bundle or a tarball)");
    if (fs::is_directory(repo)) return tree_of_checkout(repo, base_commit, repo);

    TemporaryDirectory scratch;
    if (ends_with(repo, ".tar") || ends_with(repo, ".tar.gz") || ends_with(repo, ".tgz") || ends_with(repo, ".tar.bz2") ||
        ends_with(repo, ".tar.xz")) {
        const auto result = run_on_host({"tar", "-xf", repo, "-C", scratch.path(), "--no-same-owner", "--no-same-permissions"});
        if (result.exit_status != 0) throw input_error("cannot unpack the tarball " + repo + ": " + failed(result));
        return tree_of_checkout(unpacked_root(scratch.path()), base_commit, repo);
    }
    // Anything else is taken for a git bundle.
    const auto clone = scratch.path() + "/repo";
    const auto result = run_on_host({"git", "clone", "--quiet", "--no-checkout", repo, clone});
    if (result.exit_status != 0)
        throw input_error("the repository " + repo + " is neither a directory, a tarball (.tar, .tar.gz, .tgz) nor a git bundle: " + failed(result));
    return tree_of_checkout(clone, base_commit.empty() ? "HEAD" : base_commit, repo);
}

}  // namespace e2beval::swe

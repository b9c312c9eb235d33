// The sandbox's root filesystem: planned in the parent (strings, host lookups), applied in the child.
// Host paths are cloned as detached read-only mount trees (open_tree + mount_setattr) while the child
// still has the host identity that may traverse them; the new root is a tmpfs assembled at /tmp of the
// child's private mount namespace, then pivoted into while the host's root is detached.
#include "local/mountns.hpp"

#include <fcntl.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string_view>

#include "e2beval/core/error.hpp"

namespace e2beval::local {

namespace {

constexpr std::string_view kNewRoot = "/tmp";  // a mount point every host has; private to the child

std::string inside(std::string_view path) { return std::string(kNewRoot) + std::string(path); }

void add_parent_directories(std::vector<MountStep>& steps, const std::filesystem::path& path) {
    std::filesystem::path partial;
    for (auto it = path.begin(); it != path.end(); ++it) {
        if (std::next(it) == path.end()) break;
        partial /= *it;
        if (partial == "/") continue;
        steps.push_back({MountStep::Kind::directory, {}, inside(partial.string()), {}, 0755});
    }
}

int count_binds(const std::vector<MountStep>& steps) {
    int count = 0;
    for (const auto& step : steps)
        if (step.kind == MountStep::Kind::bind_read_only || step.kind == MountStep::Kind::bind_device) ++count;
    return count;
}

void add_bind(std::vector<MountStep>& steps, MountStep::Kind kind, const std::string& host_path, mode_t mode) {
    steps.push_back({MountStep::Kind::file, {}, inside(host_path), {}, mode});
    steps.push_back({kind, host_path, inside(host_path), {}, 0, count_binds(steps)});
}

// Binds `host_path` read-only at path_inside(host_path).
void add_host_path(std::vector<MountStep>& steps, const std::string& host_path) {
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(host_path, ec);
    if (ec || !std::filesystem::exists(status)) return;
    const auto target = path_inside(host_path);
    add_parent_directories(steps, target);
    if (std::filesystem::is_symlink(status)) {
        steps.push_back({MountStep::Kind::symlink, {}, inside(target),
                         path_inside(std::filesystem::read_symlink(host_path, ec).string()), 0});
        return;
    }
    if (std::filesystem::is_directory(status)) {
        steps.push_back({MountStep::Kind::directory, {}, inside(target), {}, 0755});
        steps.push_back({MountStep::Kind::bind_read_only, host_path, inside(target), {}, 0, count_binds(steps)});
        return;
    }
    steps.push_back({MountStep::Kind::file, {}, inside(target), {}, 0444});
    steps.push_back({MountStep::Kind::bind_read_only, host_path, inside(target), {}, 0, count_binds(steps)});
}

std::string passwd_file(const RootFilesystemSpec& spec) {
    const std::string home = spec.home_directory.empty() ? "/tmp" : spec.home_directory;
    return "root:x:0:0:root:/root:/usr/sbin/nologin\n"
           "user:x:" + std::to_string(spec.inside_uid) + ":" + std::to_string(spec.inside_gid) +
           ":sandbox user:" + home + ":" + spec.login_shell + "\n"
           "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
}

// Where the workspace's tmpfs is mounted while its two directories are bound at the home and at /tmp. It is
// unmounted and removed before the sandbox starts: only those two places show the tmpfs, and nothing shows
// that they share it but their sizes (statfs) and the device number.
constexpr std::string_view kWorkspaceStage = "/.e2beval-workspace";

// The writable, size-limited workspace: /tmp alone, or the home and /tmp as two directories of one tmpfs.
void add_workspace(std::vector<MountStep>& steps, const RootFilesystemSpec& spec, const std::string& options) {
    using Kind = MountStep::Kind;
    if (spec.home_directory.empty()) {
        steps.push_back({Kind::directory, {}, inside("/tmp"), {}, 0755});
        steps.push_back({Kind::tmpfs, {}, inside("/tmp"), options, 0});
        return;
    }
    const auto stage = inside(kWorkspaceStage);
    steps.push_back({Kind::directory, {}, stage, {}, 0700});
    steps.push_back({Kind::tmpfs, {}, stage, options, 0});
    steps.push_back({Kind::exact_directory, {}, stage + "/home", {}, 0755});
    steps.push_back({Kind::exact_directory, {}, stage + "/tmp", {}, 01777});  // as every Linux /tmp
    add_parent_directories(steps, spec.home_directory);
    steps.push_back({Kind::directory, {}, inside(spec.home_directory), {}, 0755});
    steps.push_back({Kind::directory, {}, inside("/tmp"), {}, 0755});
    steps.push_back({Kind::bind_inside, stage + "/home", inside(spec.home_directory), {}, 0});
    steps.push_back({Kind::bind_inside, stage + "/tmp", inside("/tmp"), {}, 0});
    steps.push_back({Kind::detach, {}, stage, {}, 0});
}

std::string group_file(const RootFilesystemSpec& spec) {
    return "root:x:0:\nuser:x:" + std::to_string(spec.inside_gid) + ":\nnogroup:x:65534:\n";
}

}  // namespace

std::string path_inside(const std::string& host_path) {
    const auto under = [&](std::string_view directory) {
        return host_path.size() > directory.size() && host_path.compare(0, directory.size(), directory) == 0 &&
               host_path[directory.size()] == '/';
    };
    if (under("/tmp")) return std::string(kHostTmpInside) + host_path.substr(4);
    if (host_path == kSessionHome || under(kSessionHome))
        return std::string(kHostHomeInside) + host_path.substr(kSessionHome.size());
    return host_path;
}

std::vector<MountStep> plan_root_filesystem(const RootFilesystemSpec& spec) {
    using Kind = MountStep::Kind;
    std::vector<MountStep> steps;
    steps.push_back({Kind::make_private, {}, "/", {}, 0});
    steps.push_back({Kind::tmpfs, {}, std::string(kNewRoot), "size=1m,nr_inodes=4096,mode=0755", 0});

    for (const auto& path : spec.read_only_paths) add_host_path(steps, path);

    steps.push_back({Kind::directory, {}, inside("/proc"), {}, 0555});
    steps.push_back({Kind::proc, {}, inside("/proc"), {}, 0});

    steps.push_back({Kind::directory, {}, inside("/dev"), {}, 0755});
    for (const char* device : {"null", "zero", "full", "random", "urandom"})
        add_bind(steps, Kind::bind_device, std::string("/dev/") + device, 0666);
    steps.push_back({Kind::symlink, {}, inside("/dev/fd"), "/proc/self/fd", 0});
    steps.push_back({Kind::symlink, {}, inside("/dev/stdin"), "/proc/self/fd/0", 0});
    steps.push_back({Kind::symlink, {}, inside("/dev/stdout"), "/proc/self/fd/1", 0});
    steps.push_back({Kind::symlink, {}, inside("/dev/stderr"), "/proc/self/fd/2", 0});

    steps.push_back({Kind::directory, {}, inside("/etc"), {}, 0755});
    steps.push_back({Kind::file, {}, inside("/etc/passwd"), passwd_file(spec), 0444});
    steps.push_back({Kind::file, {}, inside("/etc/group"), group_file(spec), 0444});
    steps.push_back({Kind::file, {}, inside("/etc/hosts"), "127.0.0.1 localhost sandbox\n::1 localhost\n", 0444});
    steps.push_back({Kind::file, {}, inside("/etc/hostname"), "sandbox\n", 0444});

    // The workspace (cwd, $HOME, /tmp) and /dev/shm are the only writable places, both size-limited.
    const auto workspace = workspace_mount_options(spec.workspace_bytes, WorkspaceOwner{spec.inside_uid, spec.inside_gid});
    add_workspace(steps, spec, workspace.workspace);
    steps.push_back({Kind::directory, {}, inside("/dev/shm"), {}, 0755});
    steps.push_back({Kind::tmpfs, {}, inside("/dev/shm"), workspace.shm, 0});

    steps.push_back({Kind::enter_root, {}, std::string(kNewRoot), {}, 0});
    if (count_binds(steps) > kMaxHostTrees)
        throw sandbox_error("too many read-only paths for the sandbox (at most " + std::to_string(kMaxHostTrees) + ")",
                            errc::invalid_input);
    return steps;
}

std::string path_while_assembling(std::string_view path) { return inside(path); }

void insert_before_entering_root(std::vector<MountStep>& plan, const std::vector<MountStep>& steps) {
    auto enter = std::find_if(plan.begin(), plan.end(), [](const MountStep& step) { return step.kind == MountStep::Kind::enter_root; });
    if (enter == plan.end()) throw sandbox_error("the sandbox's root filesystem has no pivot step");
    plan.insert(enter, steps.begin(), steps.end());
}

}  // namespace e2beval::local

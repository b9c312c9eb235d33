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
    return "root:x:0:0:root:/root:/usr/sbin/nologin\n"
           "user:x:" + std::to_string(spec.inside_uid) + ":" + std::to_string(spec.inside_gid) +
           ":sandbox user:/tmp:/bin/sh\n"
           "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
}

std::string group_file(const RootFilesystemSpec& spec) {
    return "root:x:0:\nuser:x:" + std::to_string(spec.inside_gid) + ":\nnogroup:x:65534:\n";
}

}  // namespace

std::string path_inside(const std::string& host_path) {
    if (host_path.rfind("/tmp/", 0) != 0) return host_path;
    return std::string(kHostTmpInside) + host_path.substr(4);
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
    const std::string owner = ",uid=" + std::to_string(spec.inside_uid) + ",gid=" + std::to_string(spec.inside_gid);
    steps.push_back({Kind::directory, {}, inside("/tmp"), {}, 0755});
    steps.push_back({Kind::tmpfs, {}, inside("/tmp"),
                     "size=" + std::to_string(spec.workspace_bytes) + ",nr_inodes=" +
                         std::to_string(spec.workspace_inodes) + ",mode=0755" + owner,
                     0});
    steps.push_back({Kind::directory, {}, inside("/dev/shm"), {}, 0755});
    steps.push_back({Kind::tmpfs, {}, inside("/dev/shm"),
                     "size=" + std::to_string(spec.workspace_bytes / 4 + 4096) + ",nr_inodes=256,mode=0755" + owner,
                     0});

    steps.push_back({Kind::enter_root, {}, std::string(kNewRoot), {}, 0});
    if (count_binds(steps) > kMaxHostTrees)
        throw sandbox_error("too many read-only paths for the sandbox (at most " + std::to_string(kMaxHostTrees) + ")",
                            errc::invalid_input);
    return steps;
}

void add_workspace_link(std::vector<MountStep>& steps, const std::string& link) {
    using Kind = MountStep::Kind;
    auto enter = std::find_if(steps.begin(), steps.end(), [](const MountStep& step) { return step.kind == Kind::enter_root; });
    std::vector<MountStep> added;
    const auto parent = std::filesystem::path(link).parent_path().string();
    if (!parent.empty() && parent != "/") added.push_back({Kind::directory, {}, inside(parent), {}, 0755});
    added.push_back({Kind::symlink, {}, inside(link), "/tmp", 0});
    steps.insert(enter, added.begin(), added.end());
}

namespace {

StepError fail(const char* call, const std::string& path) noexcept { return {call, path.c_str(), errno}; }

StepError write_file(const MountStep& step) noexcept {
    const int fd = ::open(step.target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, step.mode);
    if (fd < 0) return fail("open(O_CREAT)", step.target);
    std::size_t written = 0;
    while (written < step.data.size()) {
        const ssize_t n = ::write(fd, step.data.data() + written, step.data.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int saved = errno;
            ::close(fd);
            errno = saved;
            return fail("write", step.target);
        }
        written += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return {};
}

}  // namespace

StepError clone_host_trees(const std::vector<MountStep>& steps, int (&tree_fds)[kMaxHostTrees]) noexcept {
    for (const auto& step : steps) {
        const bool device = step.kind == MountStep::Kind::bind_device;
        if (step.kind != MountStep::Kind::bind_read_only && !device) continue;
        const unsigned recursive = device ? 0u : AT_RECURSIVE;
        const long fd = ::syscall(SYS_open_tree, AT_FDCWD, step.source.c_str(),
                                  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | recursive);
        if (fd < 0) return fail("open_tree(OPEN_TREE_CLONE)", step.source);
        mount_attr attributes{};
        attributes.attr_set = device ? (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)
                                     : (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
        if (::syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | recursive, &attributes, sizeof attributes) != 0)
            return fail(device ? "mount_setattr(NOSUID|NOEXEC)" : "mount_setattr(RDONLY|NOSUID|NODEV, AT_RECURSIVE)",
                        step.source);
        tree_fds[step.tree] = static_cast<int>(fd);
    }
    return {};
}

StepError apply_mount_step(const MountStep& step, const int (&tree_fds)[kMaxHostTrees]) noexcept {
    using Kind = MountStep::Kind;
    const char* target = step.target.c_str();
    switch (step.kind) {
        case Kind::make_private:
            if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
                return fail("mount(/, MS_REC|MS_PRIVATE)", step.target);
            return {};
        case Kind::tmpfs:
            if (::mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, step.data.c_str()) != 0)
                return fail("mount(tmpfs)", step.target);
            return {};
        case Kind::directory:
            if (::mkdir(target, step.mode) != 0 && errno != EEXIST) return fail("mkdir", step.target);
            return {};
        case Kind::file:
            return write_file(step);
        case Kind::bind_read_only:
        case Kind::bind_device: {
            const int tree = tree_fds[step.tree];
            if (::syscall(SYS_move_mount, tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) != 0)
                return fail("move_mount", step.target);
            ::close(tree);
            return {};
        }
        case Kind::proc:
            if (::mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
                return fail("mount(proc)", step.target);
            return {};
        case Kind::symlink:
            if (::symlink(step.data.c_str(), target) != 0 && errno != EEXIST) return fail("symlink", step.target);
            return {};
        case Kind::enter_root:
            if (::chdir(target) != 0) return fail("chdir", step.target);
            // pivot_root(".", "."): the host's root ends up stacked on top of the new one; detach it
            // with everything below it, so no path leads back to the host.
            if (::syscall(SYS_pivot_root, ".", ".") != 0) return fail("pivot_root(., .)", step.target);
            if (::umount2(".", MNT_DETACH) != 0) return fail("umount2(., MNT_DETACH)", step.target);
            if (::chdir("/") != 0) return fail("chdir(/)", step.target);
            if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
                return fail("mount(/, MS_REMOUNT|MS_RDONLY)", step.target);
            return {};
    }
    return {};
}

}  // namespace e2beval::local

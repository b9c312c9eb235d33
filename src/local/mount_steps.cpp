// See mount_steps.hpp. Nothing here allocates after the plan is built, except workspace_mount_options.
#include "local/mount_steps.hpp"

#include <fcntl.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace e2beval::local {

WorkspaceMountOptions workspace_mount_options(std::uint64_t bytes, std::optional<WorkspaceOwner> owner) {
    // Its root is the sandbox user's, mode 0755, so the code can write there and nothing else can.
    const std::string owned =
        owner ? ",mode=0755,uid=" + std::to_string(owner->uid) + ",gid=" + std::to_string(owner->gid) : std::string();
    return {"size=" + std::to_string(bytes) + ",nr_inodes=4096" + owned,
            "size=" + std::to_string(bytes / 4 + 4096) + ",nr_inodes=256" + owned};
}

StepError resize_tmpfs(const char* target, const std::string& options) noexcept {
    if (::mount(nullptr, target, nullptr, MS_REMOUNT | MS_NOSUID | MS_NODEV, options.c_str()) != 0)
        return {"mount(MS_REMOUNT, tmpfs)", target, errno};
    return {};
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
        case Kind::exact_directory:
            if (::mkdir(target, step.mode) != 0 && errno != EEXIST) return fail("mkdir", step.target);
            if (::chmod(target, step.mode) != 0) return fail("chmod", step.target);
            return {};
        case Kind::bind_inside:
            // A bind of our own mount: it keeps that mount's flags (nosuid, nodev) and, once the root is remounted
            // read-only, nothing of it changes but what its own filesystem allows.
            if (::mount(step.source.c_str(), target, nullptr, MS_BIND, nullptr) != 0) return fail("mount(MS_BIND)", step.target);
            return {};
        case Kind::overlay:
            // Go's build cache: a read-only lower layer e2beval prepared, the upper layer in the workspace.
            if (::mount("overlay", target, "overlay", MS_NOSUID | MS_NODEV, step.data.c_str()) != 0)
                return fail("mount(overlay)", step.target);
            return {};
        case Kind::cover_existing: {
            // As the sandbox user, inside the new root: a path this cannot reach, the code (same identity, same
            // root) cannot execute either, so only what stat finds needs covering.
            struct stat found {};
            if (::stat(target, &found) != 0 || !S_ISREG(found.st_mode)) return {};
            if (::mount(step.source.c_str(), target, nullptr, MS_BIND, nullptr) != 0) return fail("mount(MS_BIND)", step.target);
            return {};
        }
        case Kind::detach:
            if (::umount2(target, MNT_DETACH) != 0) return fail("umount2(MNT_DETACH)", step.target);
            if (::rmdir(target) != 0) return fail("rmdir", step.target);
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

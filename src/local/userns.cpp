// Parent-side user namespace set-up: choosing host ids and writing the child's id maps.
#include "local/userns.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "e2beval/core/error.hpp"
#include "local/fd.hpp"

namespace e2beval::local {

namespace {

// Host ids far above any real account, one per concurrent slot, so two sandboxes never share a host id.
constexpr uid_t kRootHostIdBase = 1'900'000'000;
constexpr unsigned kRootHostIdSlots = 65'536;

void write_proc_file(pid_t child, const char* name, const std::string& content) {
    const std::string path = "/proc/" + std::to_string(child) + "/" + name;
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd) throw sandbox_error(describe_syscall_failure("open(" + path + ")", errno));
    if (::write(fd.get(), content.data(), content.size()) != static_cast<ssize_t>(content.size()))
        throw sandbox_error(describe_syscall_failure("write(" + path + ", \"" + content.substr(0, content.size() - 1) + "\")", errno));
}

}  // namespace

IdMapping choose_id_mapping() {
    static std::atomic<unsigned> next_slot{0};
    IdMapping mapping;
    if (::geteuid() == 0) {
        const unsigned slot = (static_cast<unsigned>(::getpid()) * 97u + next_slot++) % kRootHostIdSlots;
        mapping.host_uid = kRootHostIdBase + slot;
        mapping.host_gid = kRootHostIdBase + slot;
        mapping.allow_setgroups = true;
    } else {
        mapping.host_uid = ::geteuid();
        mapping.host_gid = ::getegid();
    }
    return mapping;
}

NamespaceCreatorIdentity::NamespaceCreatorIdentity(const IdMapping& mapping) {
    if (::geteuid() != 0 || mapping.host_uid == 0) return;
    // The group first, while we still have CAP_SETGID; the real and saved ids stay 0 so we can come back.
    if (::syscall(SYS_setresgid, -1, mapping.host_gid, -1) != 0)
        throw sandbox_error(describe_syscall_failure("setresgid(-1, " + std::to_string(mapping.host_gid) + ", -1)", errno));
    if (::syscall(SYS_setresuid, -1, mapping.host_uid, -1) != 0) {
        const int saved = errno;
        ::syscall(SYS_setresgid, -1, 0, -1);
        throw sandbox_error(describe_syscall_failure("setresuid(-1, " + std::to_string(mapping.host_uid) + ", -1)", saved));
    }
    // File access stays root's: allowed without privilege because the real id is 0, and it gives back the
    // file-system capabilities the change of effective id cleared.
    ::syscall(SYS_setfsuid, 0);
    ::syscall(SYS_setfsgid, 0);
    changed_ = true;
}

NamespaceCreatorIdentity::~NamespaceCreatorIdentity() {
    if (!changed_) return;
    // Back to effective id 0 first (allowed: the real id is 0), which restores the effective capabilities,
    // then the group. Failing here would leave this thread unprivileged: nothing else could be done safely.
    if (::syscall(SYS_setresuid, -1, 0, -1) != 0 || ::syscall(SYS_setresgid, -1, 0, -1) != 0) std::abort();
}

void write_id_maps(pid_t child, const IdMapping& mapping) {
    write_proc_file(child, "setgroups", mapping.allow_setgroups ? "allow\n" : "deny\n");
    write_proc_file(child, "uid_map",
                    std::to_string(mapping.inside_uid) + " " + std::to_string(mapping.host_uid) + " 1\n");
    write_proc_file(child, "gid_map",
                    std::to_string(mapping.inside_gid) + " " + std::to_string(mapping.host_gid) + " 1\n");
}

}  // namespace e2beval::local

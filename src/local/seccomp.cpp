// The seccomp deny list, compiled to BPF with libseccomp in the parent and loaded with seccomp(2) in
// the child. Denied calls are routed to a user-notification listener so the supervisor can report each
// one (and answer EPERM, or kill the sandbox in kill mode).
#include "local/seccomp.hpp"

#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "e2beval/core/error.hpp"
#include "local/fd.hpp"

namespace e2beval::local {

namespace {

// Calls that reach kernel attack surface or the host and that no test program needs.
const std::vector<std::string> kDenied = {
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",                        // other processes
    "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr",                                                               // mounts
    "unshare", "setns",                                                                      // namespaces
    "keyctl", "add_key", "request_key",                                                      // kernel keyring
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
    "swapoff", "acct", "syslog", "quotactl", "iopl", "ioperm", "uselib", "vhangup", "lookup_dcookie",
    "name_to_handle_at", "open_by_handle_at", "fanotify_init",                               // kernel and devices
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
};

// Namespaces a program could otherwise create with clone(2) to regain capabilities inside them.
constexpr std::uint64_t kNamespaceFlags[] = {CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID, CLONE_NEWNET,
                                             CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP};

struct ContextDeleter {
    void operator()(void* context) const noexcept { seccomp_release(context); }
};

void check(int result, const std::string& what) {
    if (result < 0) throw sandbox_error("seccomp: " + what + ": " + std::strerror(-result), errc::unsupported);
}

}  // namespace

const std::vector<std::string>& denied_syscall_names() { return kDenied; }

SeccompProgram compile_seccomp_filter(SeccompMode mode, bool allow_network, bool allow_reports,
                                      const std::vector<std::string>& unavailable) {
    const bool notify = allow_reports && seccomp_api_get() >= 5;
    // With user notification the supervisor answers EPERM or kills, and reports the call either way.
    const std::uint32_t deny =
        notify ? SCMP_ACT_NOTIFY : (mode == SeccompMode::kill ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO(EPERM));
    std::unique_ptr<void, ContextDeleter> context(seccomp_init(SCMP_ACT_ALLOW));
    if (!context) throw sandbox_error("seccomp_init failed", errc::unsupported);
    auto* filter = context.get();
    // Calls from another architecture (i386, x32 on x86_64) would bypass the rules: kill instead.
    check(seccomp_attr_set(filter, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS), "SCMP_FLTATR_ACT_BADARCH");
    check(seccomp_attr_set(filter, SCMP_FLTATR_CTL_NNP, 0), "SCMP_FLTATR_CTL_NNP");
    // A binary tree of syscall numbers rather than a list: the kernel emulates the filter for every syscall
    // number when it is installed (its cache of always-allowed calls), with interrupts off, and a
    // call the cache does not cover walks it; the same rules, O(log n) tests instead of O(n).
    check(seccomp_attr_set(filter, SCMP_FLTATR_CTL_OPTIMIZE, 2), "SCMP_FLTATR_CTL_OPTIMIZE");

    for (const auto& name : kDenied) {
        const int number = seccomp_syscall_resolve_name(name.c_str());
        if (number == __NR_SCMP_ERROR) continue;  // not on this architecture
        const bool absent = std::find(unavailable.begin(), unavailable.end(), name) != unavailable.end();
        check(seccomp_rule_add(filter, absent ? SCMP_ACT_ERRNO(ENOSYS) : deny, number, 0), "deny " + name);
    }
    for (const auto flag : kNamespaceFlags)
        check(seccomp_rule_add(filter, deny, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)),
              "deny clone with namespace flags");
    // clone3 passes its flags in memory, out of the filter's reach: ENOSYS makes libc fall back to clone.
    check(seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0), "clone3");
    // personality(0xffffffff) only queries; anything else may disable address-space randomisation.
    check(seccomp_rule_add(filter, deny, SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_NE, 0xffffffffu)), "personality");
    // Sockets: only AF_UNIX, unless the caller opted in to the network.
    if (!allow_network)
        check(seccomp_rule_add(filter, deny, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX)), "socket");

    UniqueFd memory(::memfd_create("e2beval-seccomp", MFD_CLOEXEC));
    if (!memory) throw sandbox_error(describe_syscall_failure("memfd_create", errno));
    check(seccomp_export_bpf(filter, memory.get()), "export BPF");
    const off_t size = ::lseek(memory.get(), 0, SEEK_END);
    if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0)
        throw sandbox_error("seccomp: exported filter has an unexpected size");
    SeccompProgram program;
    program.reports_denials = notify;
    program.instructions.resize(static_cast<std::size_t>(size) / sizeof(sock_filter));
    if (::pread(memory.get(), program.instructions.data(), static_cast<std::size_t>(size), 0) != size)
        throw sandbox_error(describe_syscall_failure("pread(seccomp filter)", errno));
    return program;
}

std::string syscall_name(std::uint32_t arch, int number) {
    std::unique_ptr<char, decltype(&std::free)> name(seccomp_syscall_resolve_num_arch(arch, number), &std::free);
    return name ? std::string(name.get()) : "syscall " + std::to_string(number);
}

}  // namespace e2beval::local

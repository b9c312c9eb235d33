// The scanner's rules for C and C++ (one set: C++ reaches the OS through the same libc and system calls):
// processes, raw system calls and inline assembly, sockets, privileged calls, dynamic loading, compile-time
// reads of host files (#include, #embed), host paths, and redefining the tests' assert.
#include "analysis/c_family_rules.hpp"

namespace e2beval::detail {

namespace rules_c_cpp {

constexpr Language kC = Language::c;

constexpr ModuleRule kModules[] = {
    {"sys/socket.h", "c-network", "sockets: network access from generated code"},
    {"netinet/", "c-network", "internet protocols: network access from generated code"},
    {"arpa/inet.h", "c-network", "internet addresses: network access from generated code"},
    {"netdb.h", "c-network", "name resolution: network access from generated code"},
    {"sys/un.h", "c-network", "unix sockets: talks to other processes"},
    {"netpacket/", "c-network", "packet sockets: raw network access"},
    {"boost/asio", "c-network", "Boost.Asio: network access from generated code"},
    {"boost/beast", "c-network", "Boost.Beast: network access from generated code"},
    {"spawn.h", "c-process", "posix_spawn: starts other programs"},
    {"sys/wait.h", "c-process", "waits on child processes: starts other programs"},
    {"boost/process", "c-process", "Boost.Process: starts other programs"},
    {"sys/syscall.h", "c-syscall", "system call numbers: raw system calls around libc"},
    {"asm/unistd.h", "c-syscall", "system call numbers: raw system calls around libc"},
    {"linux/", "c-privileged", "the kernel's own interfaces (io_uring, bpf, seccomp, perf, namespaces)"},
    {"sys/mount.h", "c-privileged", "mount and umount: changes the file-system view"},
    {"sys/ptrace.h", "c-privileged", "ptrace: reads and controls other processes"},
    {"sys/prctl.h", "c-privileged", "prctl: changes the process's privileges and limits"},
    {"sys/capability.h", "c-privileged", "capabilities: changes the process's privileges"},
    {"sys/fsuid.h", "c-privileged", "changes the process's identity"},
    {"sys/reboot.h", "c-privileged", "reboots the machine"},
    {"sys/personality.h", "c-privileged", "changes the kernel's execution domain"},
    {"sys/io_uring.h", "c-privileged", "io_uring: system calls outside the usual filters"},
    {"liburing.h", "c-privileged", "io_uring: system calls outside the usual filters"},
    {"keyutils.h", "c-privileged", "the kernel's key store"},
    {"dlfcn.h", "c-dynamic-load", "dlopen and dlsym: loads code or finds functions by name at run time"},
};

constexpr NameRule kNames[] = {
    {"system", NameUse::plain_call, "c-process", "runs a shell command"},
    {"popen", NameUse::plain_call, "c-process", "runs a shell command"},
    {"fork", NameUse::plain_call, "c-process", "starts another process"},
    {"vfork", NameUse::plain_call, "c-process", "starts another process"},
    {"clone", NameUse::plain_call, "c-process", "starts another process or thread with chosen namespaces"},
    {"clone3", NameUse::plain_call, "c-process", "starts another process or thread with chosen namespaces"},
    {"execl", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"execlp", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"execle", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"execv", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"execvp", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"execvpe", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"execve", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"execveat", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"fexecve", NameUse::plain_call, "c-process", "replaces the program with another"},
    {"posix_spawn", NameUse::plain_call, "c-process", "starts another program"},
    {"posix_spawnp", NameUse::plain_call, "c-process", "starts another program"},
    {"daemon", NameUse::plain_call, "c-process", "detaches into a daemon that outlives the run"},
    {"syscall", NameUse::plain_call, "c-syscall", "makes a raw system call around libc"},
    {"asm", NameUse::any, "c-inline-asm", "inline assembly: raw system calls and machine code"},
    {"__asm__", NameUse::any, "c-inline-asm", "inline assembly: raw system calls and machine code"},
    {"__asm", NameUse::any, "c-inline-asm", "inline assembly: raw system calls and machine code"},
    {"socket", NameUse::plain_call, "c-network", "opens a socket"},
    {"socketpair", NameUse::plain_call, "c-network", "opens a socket pair"},
    {"getaddrinfo", NameUse::plain_call, "c-network", "resolves host names"},
    {"gethostbyname", NameUse::plain_call, "c-network", "resolves host names"},
    {"mount", NameUse::plain_call, "c-privileged", "changes the file-system view"},
    {"umount", NameUse::plain_call, "c-privileged", "changes the file-system view"},
    {"umount2", NameUse::plain_call, "c-privileged", "changes the file-system view"},
    {"unshare", NameUse::plain_call, "c-privileged", "enters new namespaces"},
    {"setns", NameUse::plain_call, "c-privileged", "joins other namespaces"},
    {"ptrace", NameUse::plain_call, "c-privileged", "reads and controls other processes"},
    {"chroot", NameUse::plain_call, "c-privileged", "changes the root directory"},
    {"pivot_root", NameUse::plain_call, "c-privileged", "changes the root file system"},
    {"setuid", NameUse::plain_call, "c-privileged", "changes the process's identity"},
    {"setgid", NameUse::plain_call, "c-privileged", "changes the process's identity"},
    {"setresuid", NameUse::plain_call, "c-privileged", "changes the process's identity"},
    {"setreuid", NameUse::plain_call, "c-privileged", "changes the process's identity"},
    {"kill", NameUse::plain_call, "c-privileged", "sends signals to other processes"},
    {"killpg", NameUse::plain_call, "c-privileged", "sends signals to other processes"},
    {"prctl", NameUse::plain_call, "c-privileged", "changes the process's privileges and limits"},
    {"reboot", NameUse::plain_call, "c-privileged", "reboots the machine"},
    {"init_module", NameUse::plain_call, "c-privileged", "loads a kernel module"},
    {"personality", NameUse::plain_call, "c-privileged", "changes the kernel's execution domain"},
    {"io_uring_setup", NameUse::plain_call, "c-privileged", "io_uring: system calls outside the usual filters"},
    {"io_uring_queue_init", NameUse::plain_call, "c-privileged", "io_uring: system calls outside the usual filters"},
    {"perf_event_open", NameUse::plain_call, "c-privileged", "reads the kernel's performance counters"},
    {"dlopen", NameUse::plain_call, "c-dynamic-load", "loads a shared library at run time"},
    {"dlmopen", NameUse::plain_call, "c-dynamic-load", "loads a shared library at run time"},
    {"dlsym", NameUse::plain_call, "c-dynamic-load", "finds a function by name at run time"},
    {"dlvsym", NameUse::plain_call, "c-dynamic-load", "finds a function by name at run time"},
    {"exit", NameUse::plain_call, "c-exit", "ends the program, with any status, before the tests are done"},
    {"_exit", NameUse::plain_call, "c-exit", "ends the program, with any status, before the tests are done"},
    {"_Exit", NameUse::plain_call, "c-exit", "ends the program, with any status, before the tests are done"},
    {"quick_exit", NameUse::plain_call, "c-exit", "ends the program, with any status, before the tests are done"},
    {"getenv", NameUse::plain_call, "c-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"secure_getenv", NameUse::plain_call, "c-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"environ", NameUse::any, "c-env", "reads the environment (the sandbox passes no secrets unless asked)"},
    {"unlink", NameUse::plain_call, "c-file-mutation", "deletes a file"},
    {"unlinkat", NameUse::plain_call, "c-file-mutation", "deletes a file"},
    {"rmdir", NameUse::plain_call, "c-file-mutation", "deletes a directory"},
    {"chmod", NameUse::plain_call, "c-file-mutation", "changes a file's permissions"},
    {"chown", NameUse::plain_call, "c-file-mutation", "changes a file's owner"},
    {"remove_all", NameUse::call, "c-file-mutation", "deletes a directory tree"},
};

static_assert(all_rules_of(kModules, kC) && all_rules_of(kNames, kC));

constexpr std::string_view kLookups[] = {"dlsym", "dlvsym"};

// What the tables cannot say: a compile-time read of a host file, and a redefined assert.
void special(CFamilyScan& scan) {
    const auto& tokens = scan.tokens();
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        if (tokens[i].kind != CTokenKind::directive) continue;
        const std::string& directive = tokens[i].value;
        const CToken& operand = tokens[i + 1];
        if (operand.kind == CTokenKind::header && CFamilyScan::path_leaves_workspace(operand.value)) {
            scan.report("c-include-path", operand, "#" + directive + " of " + operand.value + ": the compiler reads a "
                                                   "file outside the workspace (the sandbox shows it none of the "
                                                   "host's; this is advice)");
        } else if ((directive == "define" || directive == "undef") && operand.kind == CTokenKind::identifier &&
                   operand.in_directive &&
                   (operand.text == "assert" || (operand.text == "NDEBUG" && directive == "define") ||
                    operand.text == "static_assert" ||
                    operand.text == "_GLIBCXX_ASSERTIONS" || operand.text == "__ASSERT_FUNCTION" ||
                    operand.text == "__assert_fail")) {
            scan.report("c-assert-override", operand, "#" + directive + " " + std::string(operand.text) +
                                                      ": changes what the tests' assert does, so a wrong answer can "
                                                      "pass");
        }
    }
}

}  // namespace rules_c_cpp

const CFamilyRules& c_rules() {
    using namespace rules_c_cpp;
    static const CFamilyRules rules{kC, CDialect::cpp, kModules, kNames, false, "c-system-path", kLookups,
                                    "c-dynamic-load", special};
    return rules;
}

}  // namespace e2beval::detail

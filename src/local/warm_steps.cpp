// The warm pool zygote's compiled steps: a small shared library, built from the same sources as the cold
// path's child (program_steps.cpp, mount_steps.cpp, child_report.cpp, ...) and embedded into e2beval,
// which the zygote (python_zygote.py) loads with ctypes from a memfd the supervisor sends it. Every step
// that isolates an execution — its namespaces and mounts, rlimits, capabilities, no_new_privs, seccomp —
// and every report to the supervisor is made here, so the zygote's Python holds no syscall number, mount
// option or struct layout, and the warm path cannot drift from the cold one.
//
// The interface is C (ctypes calls it from any Python version): each step returns 0, or -1 after keeping
// what failed, which e2beval_warm_report_failure() then sends to the supervisor.
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string_view>
#include <utility>

#include "local/child_report.hpp"
#include "local/mount_steps.hpp"
#include "local/program_steps.hpp"
#include "local/rlimit.hpp"
#include "local/warm_protocol.hpp"
#include "local/warm_steps.hpp"

#define E2BEVAL_WARM_API extern "C" __attribute__((visibility("default")))

namespace e2beval::local {
namespace {

// One zygote process, one configuration; each forked child has its own copy of this state.
std::optional<WarmSettings> settings;
std::optional<WarmSteps> steps;
int own_pid_namespace = -1;
StepError last_failure;

int failed(const char* call, const char* path = "", int error = errno) noexcept {
    last_failure = {call, path, error};
    return -1;
}

int failed(const StepError& step) noexcept {
    last_failure = step;
    return -1;
}

}  // namespace
}  // namespace e2beval::local

E2BEVAL_WARM_API void e2beval_session_describe_failure(char* buffer, std::size_t size);

namespace e2beval::local {
namespace {

// The session init's program (see e2beval_session_contain_child): where a SIGINT or SIGTERM from the agent goes.
volatile sig_atomic_t session_program = 0;

void forward_signal(int signal_number) noexcept {
    if (session_program > 0) ::kill(session_program, signal_number);
}

// The init is a fork of the agent: blank its copy of the agent's command line, the one thing of it that
// /proc shows a process of another identity without ptrace access (see proc(5), /proc/pid/cmdline).
void wipe_command_line() noexcept {
    const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char text[1024];
    const ssize_t length = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (length <= 0) return;
    text[length] = '\0';
    const char* field = std::strrchr(text, ')');  // the command name may hold spaces; fields follow it
    unsigned long long arg_start = 0, arg_end = 0;
    for (int number = 2; field != nullptr && number <= 49; ++number) {
        field = std::strchr(field + 1, ' ');
        if (field == nullptr) return;
        if (number == 47) arg_start = std::strtoull(field + 1, nullptr, 10);  // field 48 (arg_start)
        if (number == 48) arg_end = std::strtoull(field + 1, nullptr, 10);    // field 49 (arg_end)
    }
    if (arg_start == 0 || arg_end <= arg_start) return;
    auto* byte = reinterpret_cast<volatile char*>(static_cast<std::uintptr_t>(arg_start));
    for (unsigned long long i = 0; i < arg_end - arg_start; ++i) byte[i] = '\0';
}

// pid 1 of a kernel's or command's pid namespace: reaps every orphan, reports how the program ended on
// `status_fd` (its wait status, in decimal), forwards SIGINT (a cell's interrupt) and SIGTERM (E2B's
// SendSignal) to it, and stays while anything it left runs,
// so a command's background processes live on in their own namespace. Holds nothing but `status_fd`:
// the agent's pipes, sockets and the code's stdio are closed here.
[[noreturn]] void run_session_init(pid_t program, int status_fd, const ProgramContainment& containment) noexcept {
    for (int signal_number = 1; signal_number < NSIG; ++signal_number) ::signal(signal_number, SIG_DFL);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    session_program = program;
    struct sigaction forward_action {};
    forward_action.sa_handler = forward_signal;
    ::sigaction(SIGINT, &forward_action, nullptr);  // a handler: pid 1 is sent only the signals it handles
    ::sigaction(SIGTERM, &forward_action, nullptr);
    if (status_fd != 3 && (::dup2(status_fd, 3) < 0 || ::close(status_fd) != 0)) ::_exit(127);
    if (::syscall(SYS_close_range, 0u, 2u, 0u) != 0 || ::syscall(SYS_close_range, 4u, ~0u, 0u) != 0) ::_exit(127);
    wipe_command_line();
    if (auto error = contain_program(containment)) {  // no capability, no_new_privs, the code's seccomp filter
        last_failure = error;
        char text[512];
        e2beval_session_describe_failure(text, sizeof text);
        [[maybe_unused]] const ssize_t written = ::write(3, text, std::strlen(text));
        ::_exit(127);
    }
    bool reported = false;
    for (;;) {
        int status = 0;
        const pid_t ended = ::waitpid(-1, &status, __WALL);
        if (ended < 0 && errno == EINTR) continue;
        if (ended < 0) ::_exit(0);  // nobody left: the namespace ends with us
        if (ended == program && !reported) {
            char text[16];
            const int length = std::snprintf(text, sizeof text, "%d\n", status);
            while (::write(3, text, static_cast<std::size_t>(length)) < 0 && errno == EINTR) {
            }
            ::close(3);
            reported = true;
        }
    }
}

}  // namespace
}  // namespace e2beval::local

using namespace e2beval::local;

// Start-up: the settings every execution of this zygote shares (its seccomp program).
E2BEVAL_WARM_API int e2beval_warm_configure(const char* bytes, std::size_t length) {
    settings = decode_warm_settings(std::string_view(bytes, length));
    if (!settings) return failed("decode(zygote settings)", "", EINVAL);
    own_pid_namespace = ::open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (own_pid_namespace < 0) return failed("open", "/proc/self/ns/pid");
    return 0;
}

// cgroup v1: how many `tasks` files per execution cgroup the settings announced (see WarmSettings).
E2BEVAL_WARM_API int e2beval_warm_cgroup_task_files() {
    return settings ? static_cast<int>(settings->cgroup_task_files) : 0;
}

// Keeps a failed step of warm_serve.cpp for e2beval_warm_report_failure; `call` names it and must be a
// literal. Returns -1.
E2BEVAL_WARM_API int e2beval_warm_record_failure(const char* call, int error) { return failed(call, "", error); }

// glibc's fork() without CPython's after-fork handlers: the zygote has one thread, so what they repair
// (locks other threads held) cannot be broken; python_zygote.py does the one that matters to the code
// (a fresh seed for `random`). See warm_serve.cpp for why they are skipped.
E2BEVAL_WARM_API int e2beval_warm_fork() {
    const pid_t pid = ::fork();
    return pid >= 0 ? pid : failed("fork");
}

// The standby's next child is pid 1 of a new pid namespace; the zygote's other children stay in its own.
E2BEVAL_WARM_API int e2beval_warm_enter_new_pid_namespace() {
    return ::unshare(CLONE_NEWPID) == 0 ? 0 : failed("unshare(CLONE_NEWPID)");
}

E2BEVAL_WARM_API int e2beval_warm_return_to_own_pid_namespace() {
    return ::setns(own_pid_namespace, CLONE_NEWPID) == 0 ? 0 : failed("setns(own pid namespace)");
}

// In the standby (pid 1 of its pid namespace), ahead of its request: its own mount and ipc namespaces,
// with its own workspace, /dev/shm and /proc, mounted as the cold path mounts them.
E2BEVAL_WARM_API int e2beval_warm_mount_own_workspace() {
    if (::unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0) return failed("unshare(CLONE_NEWNS|CLONE_NEWIPC)");
    const auto options = workspace_mount_options(kWarmDefaultWorkspaceBytes, WorkspaceOwner{::getuid(), ::getgid()});
    const MountStep own[] = {
        {MountStep::Kind::tmpfs, {}, "/tmp", options.workspace, 0755, -1},
        {MountStep::Kind::tmpfs, {}, "/dev/shm", options.shm, 0755, -1},
        {MountStep::Kind::proc, {}, "/proc", {}, 0, -1},
    };
    const int no_trees[kMaxHostTrees] = {};
    for (const auto& step : own)
        if (auto error = apply_mount_step(step, no_trees)) return failed(error);
    return 0;
}

int e2beval::local::warm_prepare(WarmSteps request_steps) {
    steps = std::move(request_steps);
    if (steps->workspace_bytes == kWarmDefaultWorkspaceBytes) return 0;
    const auto options = workspace_mount_options(steps->workspace_bytes, std::nullopt);
    if (auto error = resize_tmpfs("/tmp", options.workspace)) return failed(error);
    if (auto error = resize_tmpfs("/dev/shm", options.shm)) return failed(error);
    return 0;
}

// The program's last steps before its code runs: the cold path's contain_program, on `report_fd`.
E2BEVAL_WARM_API int e2beval_warm_contain(int report_fd) {
    if (!settings || !steps) return failed("contain before configure/prepare", "", EINVAL);
    ProgramContainment containment;
    containment.rlimits = &steps->rlimits;
    containment.seccomp_filter = {static_cast<unsigned short>(settings->seccomp_filter.size()),
                                  settings->seccomp_filter.data()};
    containment.seccomp_reports_denials = settings->seccomp_reports_denials;
    containment.report_fd = report_fd;
    if (auto error = contain_program(containment)) return failed(error);
    return 0;
}

E2BEVAL_WARM_API void e2beval_warm_report_failure(int fd) { send_child_report(fd, failure_report(last_failure)); }

// The zygote's own bug (a Python exception): reported as a failed step named by `text`.
E2BEVAL_WARM_API void e2beval_warm_report_bug(int fd, const char* text) {
    send_child_report(fd, failure_report({text, "", 0}));
}

E2BEVAL_WARM_API int e2beval_warm_report_ready(int fd, int pid, int standby_pidfd) {
    ChildReport report;
    report.kind = ChildReport::zygote_ready;
    report.value = pid;
    if (auto error = send_child_report_with_fd(fd, report, standby_pidfd)) return failed(error);
    return 0;
}

E2BEVAL_WARM_API int e2beval_warm_report_standby(int fd, int standby_pidfd) {
    ChildReport report;
    report.kind = ChildReport::standby_ready;
    if (auto error = send_child_report_with_fd(fd, report, standby_pidfd)) return failed(error);
    return 0;
}

E2BEVAL_WARM_API int e2beval_warm_report_started(int fd, int pidfd) {
    ChildReport report;
    report.kind = ChildReport::program_started;
    if (auto error = send_child_report_with_fd(fd, report, pidfd)) return failed(error);
    return 0;
}

E2BEVAL_WARM_API void e2beval_warm_report_ended(int fd, int wait_status, const struct rusage* usage) {
    send_child_report(fd, program_ended_report(wait_status, *usage));
}

// ---- Sessions: the agent's children --------------------------------------------------------------------------
// The session agent (src/local/session_agent/) runs, like the zygote, with CAP_SYS_ADMIN and CAP_SETPCAP inside the
// sandbox's user namespace only, and loads this library the same way. It starts every kernel and command as
// pid 1 of a new pid namespace (e2beval_warm_enter_new_pid_namespace around the fork), whose first step is
// e2beval_session_contain_child: so the code never sees, signals or opens the agent or another command.

// Start-up: the seccomp program and rlimits every child applies (as the host encoded them); the agent takes
// the rlimits too and becomes non-dumpable, so nothing of its memory or fds is reachable through /proc.
E2BEVAL_WARM_API int e2beval_session_configure(const char* settings_bytes, std::size_t settings_length,
                                               const char* steps_bytes, std::size_t steps_length) {
    if (e2beval_warm_configure(settings_bytes, settings_length) != 0) return -1;
    steps = decode_warm_steps(std::string_view(steps_bytes, steps_length));
    if (!steps) return failed("decode(session limits)", "", EINVAL);
    // The agent writes files for the host (files_write): the session's rlimits hold for it as for the code.
    if (auto error = apply_rlimits(steps->rlimits)) return failed(error);
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return failed("prctl(PR_SET_DUMPABLE, 0)");
    return 0;
}

// In the agent's child, pid 1 of its new pid namespace, before the exec: its own mount namespace with a
// /proc that shows only this namespace's processes; then it forks. The parent stays as the namespace's init
// (run_session_init, never returns); the child — the program — sets the rlimits, drops every capability,
// sets no_new_privs, installs the seccomp filter and returns 0 so its caller goes on to exec.
E2BEVAL_WARM_API int e2beval_session_contain_child(int status_fd) {
    if (!settings || !steps) return failed("contain before e2beval_session_configure", "", EINVAL);
    if (::unshare(CLONE_NEWNS) != 0) return failed("unshare(CLONE_NEWNS)");
    const MountStep own[] = {
        {MountStep::Kind::make_private, {}, "/", {}, 0, -1},
        {MountStep::Kind::proc, {}, "/proc", {}, 0, -1},
    };
    const int no_trees[kMaxHostTrees] = {};
    for (const auto& step : own)
        if (auto error = apply_mount_step(step, no_trees)) return failed(error);
    ProgramContainment containment;
    containment.rlimits = &steps->rlimits;
    containment.seccomp_filter = {static_cast<unsigned short>(settings->seccomp_filter.size()),
                                  settings->seccomp_filter.data()};
    containment.seccomp_reports_denials = false;  // nobody would answer: the agent is not a supervisor
    // Blank the agent's command line before the fork, not only in the init after it: the program may list
    // /proc the moment it runs, before its init has got to run_session_init's wipe.
    wipe_command_line();
    const pid_t program = ::fork();
    if (program < 0) return failed("fork");
    if (program > 0) run_session_init(program, status_fd, containment);
    ::close(status_fd);
    if (auto error = contain_program(containment)) return failed(error);
    return 0;
}

// What the last failed step was, as one line for an error message ("unshare(CLONE_NEWNS): Operation not
// permitted"), written into `buffer`.
E2BEVAL_WARM_API void e2beval_session_describe_failure(char* buffer, std::size_t size) {
    if (size == 0) return;
    std::snprintf(buffer, size, "%s%s%s: %s", last_failure.call ? last_failure.call : "?",
                  last_failure.path && *last_failure.path ? " on " : "", last_failure.path ? last_failure.path : "",
                  std::strerror(last_failure.error));
}

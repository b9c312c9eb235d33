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
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <fcntl.h>
#include <optional>
#include <string_view>

#include "local/child_report.hpp"
#include "local/mount_steps.hpp"
#include "local/program_steps.hpp"
#include "local/warm_protocol.hpp"

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

using namespace e2beval::local;

// Start-up: the settings every execution of this zygote shares (its seccomp program).
E2BEVAL_WARM_API int e2beval_warm_configure(const char* bytes, std::size_t length) {
    settings = decode_warm_settings(std::string_view(bytes, length));
    if (!settings) return failed("decode(zygote settings)", "", EINVAL);
    own_pid_namespace = ::open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (own_pid_namespace < 0) return failed("open", "/proc/self/ns/pid");
    return 0;
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

// On the request: reads its steps and gives the workspace the request's size.
E2BEVAL_WARM_API int e2beval_warm_prepare(const char* bytes, std::size_t length) {
    steps = decode_warm_steps(std::string_view(bytes, length));
    if (!steps) return failed("decode(execution steps)", "", EINVAL);
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

E2BEVAL_WARM_API void e2beval_warm_report_ready(int fd, int pid) {
    ChildReport report;
    report.kind = ChildReport::zygote_ready;
    report.value = pid;
    send_child_report(fd, report);
}

E2BEVAL_WARM_API int e2beval_warm_report_started(int fd, int pidfd) {
    ChildReport report;
    report.kind = ChildReport::program_started;
    if (auto error = send_child_report_with_fd(fd, report, pidfd)) return failed(error);
    return 0;
}

E2BEVAL_WARM_API void e2beval_warm_report_ended(int fd, int wait_status, long long peak_rss_kib, long long cpu_us) {
    ChildReport report;
    report.kind = ChildReport::program_ended;
    report.value = wait_status;
    report.peak_rss_kib = peak_rss_kib;
    report.cpu_us = cpu_us;
    send_child_report(fd, report);
}

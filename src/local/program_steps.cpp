// See program_steps.hpp.
#include "local/program_steps.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "local/capabilities.hpp"
#include "local/child_report.hpp"
#include "local/rlimit.hpp"
#include "local/seccomp.hpp"

namespace e2beval::local {

namespace {

// When the sandbox's cgroup runs out of memory, the kernel must kill the program's tree, not the process
// that reports how it ended (the cold init, a copy of the host process, or the warm zygote). Raising one's
// own OOM score needs no privilege, but /proc/self is ours to write only while we are dumpable: for these
// few calls we are, and then we are again what we were (the cold child is not dumpable until exec resets
// it; the warm child stays as the zygote was). Where /proc refuses, the default order stays.
void prefer_as_oom_victim() noexcept {
    const int was_dumpable = ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
    ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    if (const int score = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC); score >= 0) {
        [[maybe_unused]] const ssize_t written = ::write(score, "1000", 4);
        ::close(score);
    }
    ::prctl(PR_SET_DUMPABLE, was_dumpable > 0 ? 1 : 0, 0, 0, 0);
}

}  // namespace

StepError contain_program(const ProgramContainment& containment) noexcept {
    prefer_as_oom_victim();
    if (containment.rlimits != nullptr)
        if (auto error = apply_rlimits(*containment.rlimits)) return error;
    if (auto error = drop_privileges()) return error;
    int listener = -1;
    if (auto error = install_seccomp_filter(containment.seccomp_filter, containment.seccomp_reports_denials, listener))
        return error;
    if (listener >= 0) {
        ChildReport report;
        report.kind = ChildReport::seccomp_listener;
        const auto sent = send_child_report_with_fd(containment.report_fd, report, listener);
        ::close(listener);
        if (sent) return sent;
    }
    return {};
}

StepError join_cgroup(const int* task_files, int count) noexcept {
    for (int i = 0; i < count; ++i) {
        ssize_t written;
        while ((written = ::write(task_files[i], "0", 1)) < 0 && errno == EINTR) {
        }
        if (written != 1) return {"write(0) into the execution cgroup's tasks file", "", written < 0 ? errno : EIO};
    }
    return {};
}

}  // namespace e2beval::local

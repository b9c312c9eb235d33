// Child side of the local sandbox: namespaces are already created by clone3; this builds the inside.
// Reads top to bottom as the isolation story. Nothing here allocates, locks or throws (see SpawnPlan).
#include "local/contain.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "local/child_report.hpp"
#include "local/fd_message.hpp"
#include "local/mount_steps.hpp"
#include "local/program_steps.hpp"

namespace e2beval::local {

namespace {

constexpr int kReportFd = 3;
constexpr int kGoFd = 4;

[[noreturn]] void fail(const StepError& step) noexcept {
    send_child_report(kReportFd, failure_report(step));
    ::_exit(127);
}

[[noreturn]] void fail(const char* call, const char* path = "") noexcept { fail(StepError{call, path, errno}); }

// The handlers this process inherited point into the host's code and state: a Python or asio handler
// would write to an fd number that names our report channel now, and the program's process runs on this
// process's memory until it execs (start_program_process). The init needs none. Ignored signals stay
// ignored: the program inherits them, as from any parent.
void reset_caught_signals() noexcept {
    for (int number = 1; number < NSIG; ++number) {
        struct sigaction current {};
        if (::sigaction(number, nullptr, &current) != 0) continue;  // SIGKILL, SIGSTOP, libc's own: EINVAL
        if (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN) continue;
        struct sigaction to_default {};
        to_default.sa_handler = SIG_DFL;
        ::sigaction(number, &to_default, nullptr);
    }
}

// Moves the inherited fds to 0..4 and closes every other fd the parent process had open.
void arrange_fds(const ChildFds& fds) noexcept {
    const int wanted[] = {fds.stdin_read, fds.stdout_write, fds.stderr_write, fds.report_write, fds.go_read};
    int moved[5];
    // Duplicate above the target range first so a source fd numbered 0..4 is not clobbered by dup2.
    for (int i = 0; i < 5; ++i)
        if ((moved[i] = ::fcntl(wanted[i], F_DUPFD, 16)) < 0) fail("fcntl(F_DUPFD)");
    for (int i = 0; i < 5; ++i)
        if (::dup2(moved[i], i) < 0) fail("dup2");
    if (::syscall(SYS_close_range, 5u, ~0u, 0u) != 0) fail("close_range(5, ~0U)");
    // The report and go pipes must not survive exec into the program.
    if (::fcntl(kReportFd, F_SETFD, FD_CLOEXEC) != 0 || ::fcntl(kGoFd, F_SETFD, FD_CLOEXEC) != 0)
        fail("fcntl(F_SETFD, FD_CLOEXEC)");
}

void wait_for_id_maps() noexcept {
    char go = 0;
    ssize_t n;
    while ((n = ::read(kGoFd, &go, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1) ::_exit(126);  // the parent gave up (or died): nothing to report to
    ::close(kGoFd);
}

// cgroup v1: the parent makes the sandbox's cgroup while this child sets up its mounts and sends each
// hierarchy's `tasks` file on the report channel; the child moves itself in (program_steps.hpp,
// join_cgroup: no RCU grace period, unlike the parent's move) before it makes the program's process, so
// everything the code does is counted and limited. A failed move is a set-up failure.
void receive_and_join_cgroup() noexcept {
    char kind = 0;
    int task_files[kMaxCgroupTaskFiles];
    const auto received = receive_with_fds(kReportFd, &kind, 1, task_files);
    if (received.bytes != 1 || received.truncated || received.fds == 0) fail("recvmsg(the sandbox cgroup's tasks files)");
    if (auto error = join_cgroup(task_files, static_cast<int>(received.fds))) fail(error);
    for (std::size_t i = 0; i < received.fds; ++i) ::close(task_files[i]);
}

// This process is a copy of the host process: blank its command line and environment strings so that
// /proc/1/cmdline (world-readable) and /proc/1/environ show nothing of the host.
void wipe_host_strings(const SpawnPlan& plan) noexcept {
    for (auto [begin, end] : {std::pair{plan.host_args_begin, plan.host_args_end}, std::pair{plan.host_env_begin, plan.host_env_end}}) {
        if (begin == 0 || end <= begin) continue;
        auto* byte = reinterpret_cast<volatile char*>(begin);
        for (std::uintptr_t i = 0; i < end - begin; ++i) byte[i] = '\0';
    }
}

// Becomes the unprivileged id inside. Capabilities in the new user namespace survive this because id 0
// is not mapped inside (so the kernel's "leaving root" rule does not apply); they are dropped explicitly
// in the program's process before exec.
//
// Raw system calls, not glibc's wrappers: those apply the change to every thread of the process they
// believe exists (__nptl_setxid), and this child of a multi-threaded host inherited their list of the
// parent's threads, none of which is here. One caught starting or ending at the moment of clone3 makes
// the wrapper wait forever for an answer (found when the warm pool began moving processes into cgroups
// from short-lived threads).
void become_sandbox_user(const SpawnPlan& plan) noexcept {
    const auto gid = static_cast<long>(plan.inside_gid);
    const auto uid = static_cast<long>(plan.inside_uid);
    if (::syscall(SYS_setresgid, gid, gid, gid) != 0) fail("setresgid");
    if (plan.clear_supplementary_groups && ::syscall(SYS_setgroups, 0L, nullptr) != 0) fail("setgroups(0, NULL)");
    if (::syscall(SYS_setresuid, uid, uid, uid) != 0) fail("setresuid");
}

void write_new_file(const std::string& path, const std::string& data, mode_t mode) noexcept {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) fail("open(O_CREAT|O_EXCL)", path.c_str());
    std::size_t written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("write", path.c_str());
        written += static_cast<std::size_t>(n);
    }
    // Exactly the mode asked for (0755 for a compiled program), whatever umask this process inherited.
    if (::fchmod(fd, mode) != 0) fail("fchmod", path.c_str());
    ::close(fd);
}

void write_program(const SpawnPlan& plan) noexcept {
    if (!plan.program_path.empty()) write_new_file(plan.program_path, plan.program_source, 0644);
    for (const auto& entry : plan.workspace_files) {
        if (!entry.directory) {
            write_new_file(entry.path, entry.data, entry.mode);
        } else if (::mkdir(entry.path.c_str(), entry.mode) != 0 && errno != EEXIST) {
            fail("mkdir", entry.path.c_str());
        }
    }
}

// ---- artifacts: the workspace files the supervisor asked for, passed as fds after the program ended ----------

// Opens `path` below `directory` without following any symbolic link (the program, still alive or not, could
// have put one there) and without blocking on a FIFO; the caller checks what it opened.
int open_beneath(int directory, const char* path, int extra_flags) noexcept {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | extra_flags);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return static_cast<int>(::syscall(SYS_openat2, directory, path, &how, sizeof how));
}

// The report for one collected file: its path relative to the workspace (prefix + name, truncated to fit).
ChildReport artifact_report(const char* prefix, const char* name, int error) noexcept {
    ChildReport report;
    report.kind = ChildReport::artifact;
    report.value = error;
    std::size_t at = 0;
    for (const char* part : {prefix, name})
        for (std::size_t i = 0; part[i] != '\0' && at + 1 < sizeof report.path; ++i) report.path[at++] = part[i];
    report.path[at] = '\0';
    return report;
}

// Sends `fd` (owned: closed here) as the file `prefix + name` if it is a regular file; otherwise says why not.
void send_regular_file(int fd, const char* prefix, const char* name, int& sent) noexcept {
    struct stat status {};
    if (fd < 0) {
        send_child_report(kReportFd, artifact_report(prefix, name, errno));
        return;
    }
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        send_child_report(kReportFd, artifact_report(prefix, name, EINVAL));
    } else if (sent < kMaxCollectedFiles) {
        send_child_report_with_fd(kReportFd, artifact_report(prefix, name, 0), fd);
        ++sent;
    } else {
        send_child_report(kReportFd, artifact_report(prefix, name, EMFILE));
    }
    ::close(fd);
}

alignas(8) char directory_entries[32 * 1024];

// A directory's regular files (one level; no symbolic links, no subdirectories).
void send_directory(int directory, const char* prefix, int& sent) noexcept {
    for (;;) {
        const long n = ::syscall(SYS_getdents64, directory, directory_entries, sizeof directory_entries);
        if (n <= 0) return;
        for (long offset = 0; offset < n;) {
            const auto* entry = reinterpret_cast<const struct dirent64*>(directory_entries + offset);
            offset += entry->d_reclen;
            const char* name = entry->d_name;
            if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
            if (entry->d_type != DT_REG && entry->d_type != DT_UNKNOWN) continue;
            send_regular_file(open_beneath(directory, name, 0), prefix, name, sent);
        }
    }
}

// Runs in the init after the program (the compiler) ended, before the final report: nothing the program left
// can follow a link out of the workspace, block the init, or hand over anything but a regular file. The
// supervisor reads the files once the init has exited, when nothing in the sandbox can change them any more.
void collect_artifacts(const SpawnPlan& plan) noexcept {
    if (plan.collect.empty()) return;
    const int workspace = ::open(plan.working_directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    int sent = 0;
    for (const auto& path : plan.collect) {
        const bool directory = !path.empty() && path.back() == '/';
        if (!directory) {
            send_regular_file(workspace < 0 ? -1 : open_beneath(workspace, path.c_str(), 0), "", path.c_str(), sent);
            continue;
        }
        const int opened = workspace < 0 ? -1 : open_beneath(workspace, path.c_str(), O_DIRECTORY);
        if (opened < 0) {
            send_child_report(kReportFd, artifact_report(path.c_str(), "", errno));
            continue;
        }
        send_directory(opened, path.c_str(), sent);
        ::close(opened);
    }
    if (workspace >= 0) ::close(workspace);
}

// The zygote's process: keeps only the two capabilities it needs to set up executions, as ambient
// capabilities so they survive exec; keeps fd 3 (the control channel to the supervisor).
[[noreturn]] void exec_zygote(const SpawnPlan& plan) noexcept {
    if (::setsid() < 0) fail("setsid");
    for (int cap = 0; cap <= 63; ++cap) {
        if (cap == CAP_SYS_ADMIN || cap == CAP_SETPCAP) continue;
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) fail("prctl(PR_CAPBSET_DROP)");
    }
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
    const std::uint32_t kept = (1u << CAP_SYS_ADMIN) | (1u << CAP_SETPCAP);
    data[0].effective = data[0].permitted = data[0].inheritable = kept;
    if (::syscall(SYS_capset, &header, data) != 0) fail("capset(CAP_SYS_ADMIN|CAP_SETPCAP)");
    for (const int cap : {CAP_SYS_ADMIN, CAP_SETPCAP})
        if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0) fail("prctl(PR_CAP_AMBIENT_RAISE)");
    if (::fcntl(kReportFd, F_SETFD, 0) != 0) fail("fcntl(F_SETFD, 0) on the control channel");
    ::execve(plan.executable.c_str(), plan.argv.data(), plan.envp.data());
    fail("execve", plan.executable.c_str());
}

// The program's own process: limits, privileges, seccomp last, then exec. Never returns.
[[noreturn]] void exec_program(const SpawnPlan& plan) noexcept {
    ProgramContainment containment;
    containment.rlimits = &plan.rlimits;
    containment.seccomp_filter = {static_cast<unsigned short>(plan.seccomp_filter.size()),
                                  const_cast<sock_filter*>(plan.seccomp_filter.data())};
    containment.seccomp_reports_denials = plan.seccomp_reports_denials;
    containment.report_fd = kReportFd;
    if (auto error = contain_program(containment)) fail(error);
    ::execve(plan.executable.c_str(), plan.argv.data(), plan.envp.data());
    fail("execve", plan.executable.c_str());
}

// Whether the program's end left nothing else in the pid namespace: every process in it is a descendant of
// this init (orphans are reparented here, before their parent can be reaped), so when no child is left
// to wait for, none is left at all. Zombies found on the way are reaped.
bool nothing_else_left() noexcept {
    for (;;) {
        const pid_t pid = ::waitpid(-1, nullptr, __WALL | WNOHANG);
        if (pid > 0) continue;
        if (pid < 0 && errno == EINTR) continue;
        return pid < 0 && errno == ECHILD;
    }
}

// pid 1 stays as a minimal init: it reaps orphans and reports how the program ended, and whether the
// program left anything behind (then the supervisor waits for our exit, which kills it all; otherwise it
// need not, deferred_reap.hpp). When it exits, the kernel kills everything left in the pid namespace, so
// nothing the program started outlives it.
[[noreturn]] void reap_until_program_ends(const SpawnPlan& plan, pid_t program) noexcept {
    ::close(0);
    ::close(1);
    ::close(2);
    for (;;) {
        int status = 0;
        struct rusage usage {};
        const pid_t pid = ::wait4(-1, &status, __WALL, &usage);
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) fail("waitpid(-1)");
        if (pid == program) {
            collect_artifacts(plan);  // before the end report: the supervisor has them all when that comes
            ChildReport report = program_ended_report(status, usage);
            report.namespace_empty = nothing_else_left() ? 1 : 0;
            send_child_report(kReportFd, report);
            ::_exit(0);
        }
    }
}

// The program's process runs on this stack until it execs. Static, so it costs the host nothing (never
// touched there) and needs nothing of the stack the init inherited from the host thread that cloned it.
alignas(64) char program_stack[256 * 1024];

int run_program_process(void* plan) {
    const auto& the_plan = *static_cast<const SpawnPlan*>(plan);
    if (the_plan.zygote) exec_zygote(the_plan);
    exec_program(the_plan);
}

// The program's process shares this process's memory until it execs (CLONE_VM | CLONE_VFORK, as
// posix_spawn does; this process waits meanwhile), so the host's page tables this process copied are not
// copied again and torn down by the exec: ~0.3 ms of a cold start. What it changes before exec is its
// own: credentials, capabilities, rlimits, no_new_privs, seccomp and fds are per process, and a vfork
// child's oom_score_adj is its own (the kernel's __set_oom_adj). The one per-memory flag it touches,
// dumpable (prefer_as_oom_victim, program_steps.cpp), it sets back before exec; while it is set, no
// other process is in the sandbox to use it.
pid_t start_program_process(const SpawnPlan& plan) noexcept {
    return ::clone(run_program_process, program_stack + sizeof program_stack, CLONE_VM | CLONE_VFORK | SIGCHLD,
                   const_cast<SpawnPlan*>(&plan));
}

}  // namespace

void run_sandbox_init(const SpawnPlan& plan, const ChildFds& fds) noexcept {
    // 1. Die with the supervisor; own only the fds we were given.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("prctl(PR_SET_PDEATHSIG, SIGKILL)");
    arrange_fds(fds);
    reset_caught_signals();
    // 2. The parent writes our uid/gid maps; nothing below works before that.
    wait_for_id_maps();
    // This process is a copy of the host process (its memory, environ, cmdline): the program, running
    // as the same id, must not be able to read it through /proc/1/{environ,mem}. (Not earlier: an
    // unprivileged parent could not write our id maps into a non-dumpable process's /proc.)
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) fail("prctl(PR_SET_DUMPABLE, 0)");
    wipe_host_strings(plan);
    // 3. mount namespace, first phase: clone the host paths the interpreter needs while we still have
    //    the host identity that may traverse them; then become the unprivileged sandbox user.
    int host_trees[kMaxHostTrees];
    if (auto error = clone_host_trees(plan.mount_steps, host_trees)) fail(error);
    become_sandbox_user(plan);
    // 4. uts and mount namespaces: our own hostname, a fresh minimal root, the workspace as cwd.
    if (::sethostname(plan.hostname.data(), plan.hostname.size()) != 0) fail("sethostname");
    for (const auto& step : plan.mount_steps)
        if (auto error = apply_mount_step(step, host_trees)) fail(error);
    if (::chdir(plan.working_directory.c_str()) != 0) fail("chdir", plan.working_directory.c_str());
    write_program(plan);
    // 5. The network namespace is new and its only interface, lo, stays down: no route anywhere.
    // 6. Into the sandbox's cgroup (v1; on v2 clone3 put us there), then the program runs in its own
    //    process; limits, privileges and exec happen there.
    if (fds.joins_cgroup) receive_and_join_cgroup();
    const pid_t program = start_program_process(plan);
    if (program < 0) fail("clone(CLONE_VM|CLONE_VFORK)");
    reap_until_program_ends(plan, program);
}

}  // namespace e2beval::local

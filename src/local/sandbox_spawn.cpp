// spawn(): the parent's side of building a sandbox (sandbox_spawn.hpp); the child's side is contain.cpp.
#include "local/sandbox_spawn.hpp"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <utility>
#include <vector>

#include "e2beval/core/error.hpp"
#include "local/contain.hpp"
#include "local/fd_message.hpp"

namespace e2beval::local {

SandboxProcess::SandboxProcess(SandboxProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), pidfd_(std::move(other.pidfd_)) {}

SandboxProcess& SandboxProcess::operator=(SandboxProcess&& other) noexcept {
    if (this != &other) {
        kill_and_reap();
        pid_ = std::exchange(other.pid_, -1);
        pidfd_ = std::move(other.pidfd_);
    }
    return *this;
}

void SandboxProcess::kill_and_reap() noexcept {
    if (pid_ <= 0) return;
    ::syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0);
    int status = 0;
    while (::wait4(pid_, &status, __WALL, nullptr) < 0 && errno == EINTR) {
    }
    pid_ = -1;
}

pid_t SandboxProcess::release_pid() noexcept { return std::exchange(pid_, -1); }

namespace {

void write_all(int fd, const std::string& data, const char* call) {
    std::size_t written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw sandbox_error(describe_syscall_failure(call, errno));
        written += static_cast<std::size_t>(n);
    }
}

std::uint64_t namespace_flags(const IsolationProfile& isolation) {
    std::uint64_t flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
    if (!isolation.network) flags |= CLONE_NEWNET;
    return flags;
}

// A socket rather than a pipe: the owner writes with MSG_NOSIGNAL, so a session whose sandbox has died gives
// EPIPE instead of killing the host process with SIGPIPE. Returns the child's (read) end.
UniqueFd request_channel(UniqueFd& write_end) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        throw sandbox_error(describe_syscall_failure("socketpair(AF_UNIX, SOCK_STREAM)", errno));
    UniqueFd read_end(ends[0]);
    write_end = UniqueFd(ends[1]);
    ::shutdown(ends[0], SHUT_WR);
    ::shutdown(ends[1], SHUT_RD);
    return read_end;
}

// v1: the cgroup, made while the child mounts; the child moves itself in through these `tasks` files before
// it starts the program (contain.cpp, join_cgroup).
void send_cgroup_to_child(Spawned& spawned, const SupervisionRequest& request) {
    spawned.cgroup = execution_cgroup(request);
    const auto task_files = spawned.cgroup ? spawned.cgroup->open_task_files() : std::vector<UniqueFd>();
    if (task_files.empty() || task_files.size() > static_cast<std::size_t>(kMaxCgroupTaskFiles))
        throw sandbox_error("the sandbox's cgroup has no v1 hierarchy its child can join");
    std::vector<int> fds;
    for (const auto& file : task_files) fds.push_back(file.get());
    if (!send_with_fds(spawned.report.get(), "c", fds))
        throw sandbox_error(describe_syscall_failure("sendmsg(the sandbox cgroup's tasks files)", errno));
}

}  // namespace

void check_stdin_size(const std::string& data) {
    if (data.size() > (1u << 20))
        throw sandbox_error("stdin for the sandbox is larger than 1 MiB; pass the data as a file instead", errc::invalid_input);
}

UniqueFd prefilled_stdin(const std::string& data) {
    Pipe pipe = make_stdio_pipe();
    if (data.empty()) return std::move(pipe.read_end);
    if (data.size() > 64 * 1024 &&
        ::fcntl(pipe.write_end.get(), F_SETPIPE_SZ, static_cast<int>(std::min<std::size_t>(data.size(), 1 << 20))) < 0)
        throw sandbox_error(describe_syscall_failure("fcntl(F_SETPIPE_SZ, " + std::to_string(data.size()) + ")", errno),
                            errc::invalid_input);
    write_all(pipe.write_end.get(), data, "write(stdin pipe)");
    return std::move(pipe.read_end);
}

ReportChannel make_report_channel() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        throw sandbox_error(describe_syscall_failure("socketpair(AF_UNIX, SOCK_SEQPACKET)", errno));
    return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

pid_t pid_of(int pidfd) {
    std::ifstream info("/proc/self/fdinfo/" + std::to_string(pidfd));
    for (std::string line; std::getline(info, line);)
        if (line.rfind("Pid:", 0) == 0) return static_cast<pid_t>(std::stol(line.substr(4)));
    throw sandbox_error("cannot read a process's pid from its pidfd");
}

std::shared_ptr<SandboxCgroup> execution_cgroup(const SupervisionRequest& request) {
    auto made = SandboxCgroup::create(request.limits);
    auto cgroup = made ? std::make_shared<SandboxCgroup>(std::move(*made)) : nullptr;
    if (!cgroup && request.isolation.minimum_level == IsolationLevel::full) {
        std::string why;
        for (const auto& note : cgroup_support().notes) why += (why.empty() ? "" : "; ") + note;
        throw sandbox_error("isolation level 'full' needs cgroup limits, which this host does not offer (" + why + "); " +
                                cgroup_support().fix + ", or accept level 'standard' (rlimits only)",
                            errc::unsupported);
    }
    return cgroup;
}

Spawned spawn(SupervisionRequest& request, bool with_cgroup, UniqueFd* channel_write_end) {
    check_stdin_size(request.stdin_data);
    // 1. cgroup (a zygote has none: its executions run in cgroups of their own). On v1 it is made after
    //    clone3, while the child sets up its mounts, and the child moves itself in (step 5).
    const bool child_joins_cgroup = with_cgroup && cgroup_support().version == CgroupSupport::Version::v1;
    std::shared_ptr<SandboxCgroup> cgroup = with_cgroup && !child_joins_cgroup ? execution_cgroup(request) : nullptr;
    // 2. pipes and the report socket.
    UniqueFd stdin_read = channel_write_end ? request_channel(*channel_write_end) : prefilled_stdin(request.stdin_data);
    Pipe out = make_stdio_pipe(), err = make_stdio_pipe(), go = make_pipe();
    ReportChannel report = make_report_channel();

    // 3. clone3 into new namespaces (and straight into the v2 cgroup).
    int pidfd = -1;
    clone_args args{};
    args.flags = namespace_flags(request.isolation) | CLONE_PIDFD;
    args.pidfd = reinterpret_cast<std::uint64_t>(&pidfd);
    args.exit_signal = 0;  // no SIGCHLD: host code that reaps "any child" cannot steal ours
    if (cgroup && cgroup->directory_fd() >= 0) {
        args.flags |= CLONE_INTO_CGROUP;
        args.cgroup = static_cast<std::uint64_t>(cgroup->directory_fd());
    }
    long pid;
    {
        const NamespaceCreatorIdentity creator(request.ids);
        pid = ::syscall(SYS_clone3, &args, sizeof args);
        // The child never leaves this scope: the creator identity is the parent thread's to restore.
        if (pid == 0)
            run_sandbox_init(request.plan, ChildFds{stdin_read.get(), out.write_end.get(), err.write_end.get(),
                                                    report.child_end.get(), go.read_end.get(), child_joins_cgroup});
    }
    if (pid < 0) {
        const int saved = errno;
        throw sandbox_error(describe_syscall_failure("clone3(CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNS|CLONE_NEWNET|CLONE_NEWIPC|"
                                                     "CLONE_NEWUTS|CLONE_NEWCGROUP)",
                                                     saved) +
                                "; run `e2beval doctor` to see what this host allows",
                            saved == EPERM || saved == ENOSPC || saved == EINVAL ? errc::unsupported : errc::sandbox_setup);
    }
    // From here on a failure kills and reaps the child (Spawned::init's destructor).
    Spawned spawned;
    spawned.init = SandboxProcess(static_cast<pid_t>(pid), UniqueFd(pidfd));
    spawned.cgroup = std::move(cgroup);
    spawned.stdout_read = std::move(out.read_end);
    spawned.stderr_read = std::move(err.read_end);
    spawned.report = std::move(report.parent_end);
    // 4. parent: id maps, then let the child go on (on v1 it joins its cgroup first).
    write_id_maps(spawned.init.pid(), request.ids);
    if (::write(go.write_end.get(), "1", 1) != 1) throw sandbox_error(describe_syscall_failure("write(go pipe)", errno));
    // 5. v1: the cgroup, sent to the child that joins it.
    if (child_joins_cgroup) send_cgroup_to_child(spawned, request);
    return spawned;
}

}  // namespace e2beval::local

// The warm pool zygote's loop, in compiled code: python_zygote.py calls e2beval_warm_serve() once, and the
// zygote never runs Python again; only the child forked for an execution (its standby) returns from it,
// into Python, which seeds random ahead of the request, then calls e2beval_warm_take_request() and runs
// the code once that returns.
//
// Why compiled: every page the zygote or its child writes after a fork is copied (copy-on-write), and the
// interpreter writes many (reference counts, allocations, frames). The Python loop this replaces made each
// execution copy ~100 pages in the zygote and ~450 in the child, which with the fork and the exit was most
// of a warm execution's CPU. Here the zygote writes a few pages of stack, and the child writes only what
// these steps need until the code runs.
//
// The steps, in order, are the ones the Python loop made (see python_zygote.py for the process picture):
//   zygote:  fork the standby (pid 1 of a new pid namespace) and report it; then per request: check the
//            standby lives, report the program's pidfd, hand the standby the request, fork the next
//            standby and report it, wait for the program, report its end.
//   standby: join its cgroup (v1), close every fd but its own socket, mount its own workspace, /dev/shm
//            and /proc; (Python seeds random); wait for the request; give the workspace the request's size, copy the code to /tmp/main.py, take the
//            stdio, then the cold path's containment (rlimits, capabilities, no_new_privs, seccomp), close
//            every other fd, and return to Python.
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "local/fd_message.hpp"
#include "local/program_steps.hpp"
#include "local/warm_protocol.hpp"
#include "local/warm_steps.hpp"

#define E2BEVAL_WARM_API extern "C" __attribute__((visibility("default")))

namespace {

// A request: its message and its fds (code, stdin, stdout, stderr, report channel).
constexpr std::size_t kRequestFds = 5;
constexpr std::size_t kMaxMessage = 1 << 16;

struct Received {
    ssize_t bytes = -1;  // 0: the sender is gone
    int fds[kRequestFds] = {-1, -1, -1, -1, -1};
};

// One message of at most kMaxMessage bytes with exactly kRequestFds fds; a longer message, or other fds, is
// refused (bytes -1, EMSGSIZE), every fd it carried closed.
Received receive(int fd, char* buffer) noexcept {
    Received received;
    const auto message = e2beval::local::receive_with_fds(fd, buffer, kMaxMessage, received.fds);
    received.bytes = message.bytes;
    if (message.bytes > 0 && (message.truncated || message.fds != kRequestFds)) {
        for (std::size_t i = 0; i < message.fds; ++i) ::close(received.fds[i]);
        received.bytes = -1;
        errno = EMSGSIZE;
    }
    return received;
}

bool send_request(int fd, const char* bytes, std::size_t length, const int (&fds)[kRequestFds]) noexcept {
    return e2beval::local::send_with_fds(fd, std::string_view(bytes, length), fds);
}

// The request's environment, kept for Python (e2beval_warm_environment_*), and whether it differs from
// this process's own (the zygote's, inherited unchanged): most requests ask for exactly that one.
std::vector<std::string> request_environment;

bool environment_differs(const std::vector<std::string>& wanted) noexcept {
    std::size_t own = 0;
    for (char** variable = environ; variable != nullptr && *variable != nullptr; ++variable) ++own;
    if (own != wanted.size()) return true;
    for (const auto& variable : wanted) {
        bool found = false;
        for (char** mine = environ; *mine != nullptr && !found; ++mine) found = variable == *mine;
        if (!found) return true;
    }
    return false;
}

bool write_all(int fd, const char* bytes, std::size_t length) noexcept {
    while (length > 0) {
        const ssize_t written = ::write(fd, bytes, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        bytes += written;
        length -= static_cast<std::size_t>(written);
    }
    return true;
}

// The code, from its sealed memfd to /tmp/main.py (the workspace), as a cold sandbox has it.
int copy_code(int code_fd) noexcept {
    const int file = ::open("/tmp/main.py", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (file < 0) return e2beval_warm_record_failure("open(/tmp/main.py)", errno);
    char chunk[16384];
    for (;;) {
        const ssize_t got = ::read(code_fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            const int error = errno;
            ::close(file);
            return e2beval_warm_record_failure("read(code)", error);
        }
        if (got == 0) break;
        if (!write_all(file, chunk, static_cast<std::size_t>(got))) {
            const int error = errno;
            ::close(file);
            return e2beval_warm_record_failure("write(/tmp/main.py)", error);
        }
    }
    if (::close(file) != 0) return e2beval_warm_record_failure("close(/tmp/main.py)", errno);
    return 0;
}

// The standby's request, in the standby: everything up to the code itself. Returns -2 once contained, or the
// report channel's fd (still open) after a failed step, for the failure report; exits when no request came.
int take_request(int standby_socket, char* buffer, bool mounted) {
    Received request = receive(standby_socket, buffer);
    if (request.bytes == 0) ::_exit(0);  // the zygote is gone
    if (request.bytes < 0) ::_exit(127);  // nothing to report on: the supervisor sees the channel close
    ::close(standby_socket);
    const int code_fd = request.fds[0], stdin_fd = request.fds[1], stdout_fd = request.fds[2],
              stderr_fd = request.fds[3], channel = request.fds[4];
    if (!mounted) return channel;  // what failed is kept: the report says it
    auto decoded = e2beval::local::decode_warm_request(std::string_view(buffer, static_cast<std::size_t>(request.bytes)));
    if (!decoded) {
        e2beval_warm_record_failure("decode(execution request)", EINVAL);
        return channel;
    }
    if (e2beval::local::warm_prepare(std::move(decoded->steps)) != 0 || copy_code(code_fd) != 0) return channel;
    if (::chdir("/tmp") != 0) {
        e2beval_warm_record_failure("chdir(/tmp)", errno);
        return channel;
    }
    const int stdio[3] = {stdin_fd, stdout_fd, stderr_fd};
    for (int target = 0; target < 3; ++target)
        if (::dup2(stdio[target], target) < 0) {
            e2beval_warm_record_failure("dup2(stdio)", errno);
            return channel;
        }
    request_environment = std::move(decoded->environment);
    if (e2beval_warm_contain(channel) != 0) return channel;
    ::close(channel);
    // Nothing of the zygote's or the supervisor's stays open for the code: only its stdio.
    if (::syscall(SYS_close_range, 3u, ~0u, 0u) != 0) ::_exit(127);
    return -2;  // the code's turn
}

struct Standby {
    pid_t pid = -1;
    int socket = -1;  // the zygote's end
};

// The zygote's request, and in a standby its own (one process, one at a time).
char request_buffer[kMaxMessage];

// cgroup v1: the `tasks` files of the zygote's two execution cgroups (opened by the supervisor), which its
// standbys join in turn, as the supervisor expects them (Zygote::take_standby_cgroup).
int cgroup_tasks[2][e2beval::local::kMaxCgroupTaskFiles];
int task_files_per_cgroup = 0;
int next_cgroup = 0;

// In a new standby, first: it moves itself into its execution's cgroup (program_steps.hpp, join_cgroup).
// Returns 0 or errno.
int join_execution_cgroup(int cgroup) noexcept {
    const auto error = e2beval::local::join_cgroup(cgroup_tasks[cgroup], task_files_per_cgroup);
    return error ? error.error : 0;
}

// In a standby: its socket to the zygote, and whether its own mounts were made.
int standby_socket = -1;
bool standby_mounted = false;

// Forks the next execution's process ahead of its request. In the child (the standby) this returns
// pid -2, its mounts made, for Python to seed random and then call e2beval_warm_take_request; in the
// zygote, the standby (pid -1 when it could not be made).
Standby start_standby() {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
        e2beval_warm_record_failure("socketpair", errno);
        return {};
    }
    if (e2beval_warm_enter_new_pid_namespace() != 0) {
        ::close(ends[0]);
        ::close(ends[1]);
        return {};
    }
    const int cgroup = next_cgroup;
    if (task_files_per_cgroup > 0) next_cgroup ^= 1;
    const int pid = e2beval_warm_fork();
    if (pid == 0) {
        if (task_files_per_cgroup > 0) {
            // The zygote reports this standby only once it is in its cgroup: nothing of its execution can
            // run outside it, and the supervisor's counters start with it inside.
            const int joined = join_execution_cgroup(cgroup);
            if (::send(ends[1], &joined, sizeof joined, MSG_NOSIGNAL) != sizeof joined || joined != 0) ::_exit(127);
        }
        ::signal(SIGCHLD, SIG_DFL);
        // Keep only our own socket: the zygote may hold the running execution's report channel, which
        // must close when that execution ends, not when this standby does.
        const unsigned keep = static_cast<unsigned>(ends[1]);
        if (keep > 3 && ::syscall(SYS_close_range, 3u, keep - 1, 0u) != 0) ::_exit(127);
        if (::syscall(SYS_close_range, keep + 1, ~0u, 0u) != 0) ::_exit(127);
        standby_mounted = e2beval_warm_mount_own_workspace() == 0;
        standby_socket = ends[1];
        return {-2, -1};
    }
    // Our own children stay in our pid namespace: only the program gets a new one.
    const bool back = e2beval_warm_return_to_own_pid_namespace() == 0;
    ::close(ends[1]);
    bool joined = true;
    if (pid > 0 && back && task_files_per_cgroup > 0) {
        int error = 0;
        ssize_t got;
        while ((got = ::recv(ends[0], &error, sizeof error, 0)) < 0 && errno == EINTR) {
        }
        joined = got == sizeof error && error == 0;
        if (!joined) e2beval_warm_record_failure("write(0) into the execution cgroup's tasks file", got == sizeof error ? error : EPIPE);
    }
    if (pid < 0 || !back || !joined) {
        if (pid > 0) ::kill(pid, SIGKILL);
        ::close(ends[0]);
        return {};
    }
    return {pid, ends[0]};
}

bool alive(pid_t pid) noexcept {
    int status = 0;
    return ::waitpid(pid, &status, WNOHANG) == 0;
}

// Hands the supervisor a pidfd of `pid` with `report` (e2beval_warm_report_ready/_standby/_started).
template <typename Report>
int report_pidfd(pid_t pid, Report report) noexcept {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) return e2beval_warm_record_failure("pidfd_open", errno);
    const int result = report(pidfd);
    ::close(pidfd);
    return result;
}

}  // namespace

// Serves executions on `control_fd` until the supervisor closes it (then exits). Returns only in a
// standby, ahead of its request: the caller prepares what it can (python_zygote.py) and then calls
// e2beval_warm_take_request.
E2BEVAL_WARM_API int e2beval_warm_serve(int control_fd) {
    char* const buffer = request_buffer;
    Standby standby = start_standby();
    if (standby.pid == -2) return 0;
    if (standby.pid < 0 ||
        report_pidfd(standby.pid, [&](int pidfd) { return e2beval_warm_report_ready(control_fd, ::getpid(), pidfd); }) != 0) {
        e2beval_warm_report_failure(control_fd);
        ::_exit(127);
    }
    for (;;) {
        Received request = receive(control_fd, buffer);
        if (request.bytes == 0) ::_exit(0);  // the supervisor is gone (the standby follows: its socket closes)
        if (request.bytes < 0) ::_exit(127);
        const int channel = request.fds[kRequestFds - 1];
        // Only the standby the supervisor moved into the request's cgroup may run it: a dead one is not
        // replaced here (a new process would run outside that cgroup's limits).
        if (!alive(standby.pid)) {
            e2beval_warm_report_bug(channel, "zygote: the process prepared for this execution died");
            ::_exit(127);
        }
        const pid_t program = standby.pid;
        // The program's pidfd reaches the supervisor before the program can run: whatever makes the
        // supervisor kill it (a denied call in kill mode, a limit) finds it there, not only its zygote.
        bool served = report_pidfd(program, [&](int pidfd) { return e2beval_warm_report_started(channel, pidfd); }) == 0;
        if (served && !send_request(standby.socket, buffer, static_cast<std::size_t>(request.bytes), request.fds))
            served = e2beval_warm_record_failure("sendmsg(request to its process)", errno) == 0;
        ::close(standby.socket);
        for (std::size_t i = 0; i + 1 < kRequestFds; ++i) ::close(request.fds[i]);
        if (!served) {
            // The supervisor ends this zygote when the report says so; the program runs or ends on its own.
            e2beval_warm_report_failure(channel);
            ::close(channel);
            continue;
        }
        // The next one, while this program runs. When it cannot be made (its cgroup removed because the
        // supervisor retires this zygote, say), that concerns no execution: this program's end is reported as
        // usual, and then this zygote, with nothing prepared, ends (the supervisor, told of no standby, would
        // end it anyway). Reporting the failure on this program's channel instead made a program that ran
        // fine a sandbox error.
        standby = start_standby();
        if (standby.pid == -2) return 0;
        const bool next_prepared = standby.pid > 0 && report_pidfd(standby.pid, [&](int pidfd) {
                                                          return e2beval_warm_report_standby(channel, pidfd);
                                                      }) == 0;
        int status = 0;
        rusage usage{};
        while (::wait4(program, &status, 0, &usage) < 0 && errno == EINTR) {
        }
        e2beval_warm_report_ended(channel, status, &usage);
        ::close(channel);
        if (!next_prepared) ::_exit(127);
    }
}

// cgroup v1: the `tasks` files the settings announced, both execution cgroups' (the first one's first).
// The standbys close them (they close every fd but their socket); the zygote keeps them.
E2BEVAL_WARM_API int e2beval_warm_keep_cgroup_tasks(const int* fds, int count) {
    const int per_cgroup = e2beval_warm_cgroup_task_files();
    if (count != 2 * per_cgroup || per_cgroup > e2beval::local::kMaxCgroupTaskFiles) return e2beval_warm_record_failure("the cgroup tasks files sent", EINVAL);
    for (int i = 0; i < count; ++i) cgroup_tasks[i / per_cgroup][i % per_cgroup] = fds[i];
    task_files_per_cgroup = per_cgroup;
    return 0;
}

// In a standby: waits for its request and makes every step up to the code (take_request). Returns once
// contained, the code in /tmp/main.py and its environment in e2beval_warm_environment_block: 1 when that
// environment differs from the one this process has (the zygote's), which Python then sets, else 0 (one
// call, not two: each call Python makes here writes pages the fork shares). On a failure it reports it and
// exits.
E2BEVAL_WARM_API int e2beval_warm_take_request() {
    const int channel = take_request(standby_socket, request_buffer, standby_mounted);
    if (channel == -2) return environment_differs(request_environment) ? 1 : 0;
    if (channel >= 0) e2beval_warm_report_failure(channel);
    ::_exit(127);
}

// The execution's environment as "NAME=value\0NAME=value\0...", `*size` bytes; valid until exit.
E2BEVAL_WARM_API const char* e2beval_warm_environment_block(std::size_t* size) {
    static std::string block;
    block.clear();
    for (const auto& variable : request_environment) {
        block += variable;
        block.push_back('\0');
    }
    *size = block.size();
    return block.data();
}

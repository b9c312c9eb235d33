// Trusted host commands (src/core/host_command.hpp): posix_spawnp, then one poll() loop over stdout and stderr
// until both reach their end, then waitpid.
#include "core/host_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "e2beval/core/error.hpp"

extern char** environ;

namespace e2beval {

namespace {

// The read end of a pipe, closed when it is read to its end or when this goes.
class ReadEnd {
public:
    explicit ReadEnd(int fd) noexcept : fd_(fd) {}
    ~ReadEnd() { close(); }
    ReadEnd(const ReadEnd&) = delete;
    ReadEnd& operator=(const ReadEnd&) = delete;
    int fd() const noexcept { return fd_; }
    void close() noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;  // poll() skips a negative fd
    }

private:
    int fd_;
};

struct Pipe {
    int read_end = -1;
    int write_end = -1;
};

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw io_error(describe_syscall_failure("pipe2()", errno));
    return {fds[0], fds[1]};
}

// Reads what is there now; closes `end` at end of file (or on an error, which ends the stream the same way).
void drain(ReadEnd& end, std::string& into) {
    char buffer[65536];
    const ssize_t got = ::read(end.fd(), buffer, sizeof buffer);
    if (got > 0) into.append(buffer, static_cast<std::size_t>(got));
    else if (got == 0 || (errno != EINTR && errno != EAGAIN)) end.close();
}

int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

HostCommandResult run_on_host(const std::vector<std::string>& command) {
    if (command.empty() || command.front().empty()) throw std::invalid_argument("run_on_host needs a program to run");
    const Pipe out = make_pipe();
    Pipe err;
    try {
        err = make_pipe();
    } catch (...) {
        ::close(out.read_end);
        ::close(out.write_end);
        throw;
    }
    ReadEnd output(out.read_end), errors(err.read_end);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out.write_end, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.write_end, STDERR_FILENO);
    std::vector<char*> argv;
    for (const auto& argument : command) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawn_error = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out.write_end);
    ::close(err.write_end);
    if (spawn_error != 0)
        throw io_error(describe_syscall_failure("posix_spawnp(" + command[0] + ")", spawn_error) +
                       (spawn_error == ENOENT ? "; install " + command[0] + " or put it on PATH" : std::string()));

    HostCommandResult result;
    try {
        while (output.fd() >= 0 || errors.fd() >= 0) {
            pollfd watched[2] = {{output.fd(), POLLIN, 0}, {errors.fd(), POLLIN, 0}};
            if (::poll(watched, 2, -1) < 0) {
                if (errno == EINTR) continue;
                throw io_error(describe_syscall_failure("poll()", errno));
            }
            // POLLHUP without POLLIN is the end of a stream whose writer has gone: read() then returns 0.
            if (watched[0].revents != 0) drain(output, result.output);
            if (watched[1].revents != 0) drain(errors, result.errors);
        }
    } catch (...) {
        output.close();  // the command gets SIGPIPE on its next write, so waiting for it cannot hang on a full pipe
        errors.close();
        wait_for(pid);
        throw;
    }
    result.exit_status = wait_for(pid);
    return result;
}

}  // namespace e2beval

// Host commands for reading a repository (git, tar): spawned without a shell, both output streams read
// to the end on a thread each so neither pipe can fill and stall the other.
#include "swe/host_command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "e2beval/core/error.hpp"

extern char** environ;

namespace e2beval::swe {

namespace {

std::string read_all(int fd) {
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

}  // namespace

HostCommandResult run_on_host(const std::vector<std::string>& command) {
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw io_error(describe_syscall_failure("pipe2()", errno));
    if (::pipe2(err, O_CLOEXEC) != 0) {
        ::close(out[0]);
        ::close(out[1]);
        throw io_error(describe_syscall_failure("pipe2()", errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<char*> argv;
    for (const auto& argument : command) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawn_error = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(err[1]);
    if (spawn_error != 0) {
        ::close(out[0]);
        ::close(err[0]);
        throw io_error(describe_syscall_failure("posix_spawnp(" + command[0] + ")", spawn_error) + "; install " + command[0]);
    }
    HostCommandResult result;
    std::thread errors([&] { result.errors = read_all(err[0]); });
    result.output = read_all(out[0]);
    errors.join();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

TemporaryDirectory::TemporaryDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/e2beval-swe-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw io_error(describe_syscall_failure("mkdtemp(" + pattern + ")", errno));
    path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace e2beval::swe

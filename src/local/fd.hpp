// RAII for file descriptors and pipes used by the local backend (fd_message.hpp hands fds to a sandbox).
// Every fd is created O_CLOEXEC so nothing leaks into a sandbox by accident.
#pragma once

#include <unistd.h>

#include <string_view>
#include <utility>

namespace e2beval::local {

class UniqueFd {
public:
    UniqueFd() noexcept = default;
    explicit UniqueFd(int fd) noexcept : fd_(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other) reset(std::exchange(other.fd_, -1));
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    int get() const noexcept { return fd_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }
    int release() noexcept { return std::exchange(fd_, -1); }
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

struct Pipe {
    UniqueFd read_end;
    UniqueFd write_end;
};

// pipe2(O_CLOEXEC); throws sandbox_error naming the call.
Pipe make_pipe();
// A pipe for a sandboxed program's stdin, stdout or stderr: make_pipe(), its inode made 0666. A pipe belongs to the
// host's root, which the sandbox's user namespace does not map (it shows as 65534, mode 0600), so opening
// /dev/stdin, /dev/stdout or /dev/stderr by name (/proc/self/fd/N: `cat /dev/stdin`, `echo > /dev/stderr`,
// readFileSync('/dev/stdin')) failed with EACCES inside the sandbox. The mode opens nothing to anyone else: reaching a
// pipe through /proc/PID/fd takes ptrace access to a process that holds it, the sandbox's own or e2beval's.
Pipe make_stdio_pipe();

// A memfd holding `bytes`, positioned at its start and sealed against any change: a receiver of the fd
// (a sandbox) can read it, never write it. Throws sandbox_error naming the call.
UniqueFd sealed_memfd(const char* name, std::string_view bytes);

}  // namespace e2beval::local

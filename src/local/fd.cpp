// fd helpers of the local backend (see fd.hpp); errors name the syscall.
#include "local/fd.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "e2beval/core/error.hpp"

namespace e2beval::local {

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw sandbox_error(describe_syscall_failure("pipe2(O_CLOEXEC)", errno));
    return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

Pipe make_stdio_pipe() {
    Pipe pipe = make_pipe();
    if (::fchmod(pipe.read_end.get(), 0666) != 0) throw sandbox_error(describe_syscall_failure("fchmod(stdio pipe, 0666)", errno));
    return pipe;
}

UniqueFd sealed_memfd(const char* name, std::string_view bytes) {
    UniqueFd memory(::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!memory) throw sandbox_error(describe_syscall_failure("memfd_create", errno));
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(memory.get(), bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw sandbox_error(describe_syscall_failure("write(memfd)", errno));
        written += static_cast<std::size_t>(n);
    }
    if (::fcntl(memory.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0)
        throw sandbox_error(describe_syscall_failure("fcntl(F_ADD_SEALS)", errno));
    ::lseek(memory.get(), 0, SEEK_SET);
    return memory;
}

}  // namespace e2beval::local

// pipe creation for the local backend, with the error naming the syscall.
#include "local/fd.hpp"

#include <fcntl.h>

#include <cerrno>

#include "e2beval/core/error.hpp"

namespace e2beval::local {

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw sandbox_error(describe_syscall_failure("pipe2(O_CLOEXEC)", errno));
    return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace e2beval::local
